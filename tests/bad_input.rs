//! The `fathom` binary fed hostile input: documents and model replies carrying terminal escape
//! sequences, a corpus with links out of its folder, an API key bound for plain HTTP. What it
//! prints must carry no control characters, what it indexes must stay inside the corpus, and what
//! it writes must be private.

mod common;

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Output, Stdio};

use common::llm_server::{Behaviour, LlmServer};

const KEY: &str = "sk-test-ECHOED-0123456789";

/// ESC sequences (colour, OSC 52 clipboard write, window title), C1 CSI, BEL, backspace, a bidi
/// override: raw in Markdown, as numeric references in HTML.
fn hostile_corpus() -> tempfile::TempDir {
    let c = tempfile::tempdir().unwrap();
    std::fs::write(
        c.path().join("2020-03-15_rates.md"),
        "# Rates\n\nThe committee lowered the interest rate \u{1b}[31mto support\u{1b}[0m \
         employment \u{1b}]52;c;cm0gLXJmIH4=\u{7} during the pandemic \u{9b}2J today \
         \u{202e}desrever\u{202c} and\u{8}\u{8} \u{1b}]0;pwned\u{1b}\\ more.",
    )
    .unwrap();
    std::fs::write(
        c.path().join("2020-04-01_rates.html"),
        "<html><head><title>Rates &#27;]0;pwned&#7;</title></head><body><h1>Rates</h1>\
         <p>The committee kept the interest rate low &#27;]52;c;Zm9v&#7; to support \
         employment &#x9b;2J &#155;0m until the recovery.</p></body></html>",
    )
    .unwrap();
    std::fs::write(
        c.path().join("2019-05-01_birds.md"),
        "# Birds\n\nThe heron stands in the shallow river waiting for fish.",
    )
    .unwrap();
    c
}

/// Characters a terminal would obey (or that reorder what it shows), with their positions.
fn obeyed(text: &str) -> Vec<(usize, char)> {
    text.char_indices()
        .filter(|(_, c)| {
            (c.is_control() && *c != '\n' && *c != '\t')
                || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        })
        .collect()
}

fn assert_clean(what: &str, o: &Output) {
    for (stream, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        let text = String::from_utf8_lossy(bytes);
        let bad = obeyed(&text);
        assert!(bad.is_empty(), "{what} {stream}: {bad:?} in\n{text}");
    }
}

fn run(data: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = common::fathom_cmd(data);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("fathom runs")
}

fn index(data: &Path, corpus: &Path, env: &[(&str, &str)]) -> serde_json::Value {
    let o = run(
        data,
        &["--corpus", corpus.to_str().unwrap(), "index", "--json"],
        env,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

const QUESTION: &str = "Why did the committee lower the interest rate to support employment?";

#[test]
fn document_text_prints_without_control_characters() {
    let corpus = hostile_corpus();
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    index(d, corpus.path(), &[]);

    let o = run(d, &["search", "interest rate employment"], &[]);
    assert!(o.status.success());
    assert_clean("search", &o);
    let text = String::from_utf8_lossy(&o.stdout);
    // The hostile passages were printed, only without what a terminal would obey.
    assert!(text.contains("to support"), "{text}");
    let o = run(d, &["search", "--json", "interest rate employment"], &[]);
    assert_clean("search --json", &o);
    let hits: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(hits["hits"].as_array().is_some_and(|h| !h.is_empty()));

    let id = "sess_escapetest000001";
    let o = run(d, &["ask", "--session", id, QUESTION], &[]);
    assert!(matches!(o.status.code(), Some(0 | 1)));
    assert_clean("ask", &o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("committee"));
    let o = run(d, &["ask", "--json", QUESTION], &[]);
    assert_clean("ask --json", &o);
    // JSON keeps the text exactly: the escapes come back when it is parsed.
    let result: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let answer = result["answer"].as_str().unwrap_or_default();
    assert!(
        !obeyed(answer).is_empty(),
        "the test needs escapes in the answer: {answer:?}"
    );
    let o = run(d, &["ask", "--events", QUESTION], &[]);
    assert_clean("ask --events", &o);
    for line in String::from_utf8_lossy(&o.stdout).lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap();
    }

    for args in [
        vec!["export", id],
        vec!["export", id, "--format", "json"],
        vec!["sessions"],
        vec!["sessions", "--json"],
    ] {
        let o = run(d, &args, &[]);
        assert!(o.status.success(), "{args:?}");
        assert_clean(&args.join(" "), &o);
    }
    let exported = d.join("export.md");
    let o = run(
        d,
        &["export", id, "--output", exported.to_str().unwrap()],
        &[],
    );
    assert!(o.status.success());
    let md = std::fs::read_to_string(&exported).unwrap();
    assert!(obeyed(&md).is_empty(), "{md}");

    // The line mode of `fathom` with questions piped in.
    let mut child = common::fathom_cmd(d)
        .args(["--corpus", corpus.path().to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(format!("{QUESTION}\nquit\n").as_bytes())
        .unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_clean("line mode", &o);
    assert!(String::from_utf8_lossy(&o.stdout).contains("committee"));
}

#[test]
fn model_replies_and_server_errors_print_without_control_characters() {
    let corpus = hostile_corpus();
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    index(d, corpus.path(), &[]);
    let rt = tokio::runtime::Runtime::new().unwrap();
    let hostile = "\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\u{9b}31m\u{202e}txet\u{202c}";
    // Every reply streams text carrying escapes (not what any stage asked for, so each stage
    // retries and falls back, and the reasons are printed); then errors whose bodies carry
    // escapes and echo the key.
    let server = rt.block_on(LlmServer::start(vec![Behaviour::Stream(vec![
        format!("Sure {hostile} here"),
        format!(" is {hostile} more"),
    ])]));
    let env = [
        ("FATHOM_LLM_BASE_URL", server.base_url()),
        ("FATHOM_LLM_MODEL", "test-model".to_string()),
        ("FATHOM_LLM_MAX_RETRIES", "0".to_string()),
        ("FATHOM_API_KEY", KEY.to_string()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    for args in [
        vec!["ask", QUESTION],
        vec!["ask", "--events", QUESTION],
        vec!["doctor"],
    ] {
        let o = run(d, &args, &env);
        assert_clean(&args.join(" "), &o);
    }
    // Raw control bytes in the body (a JSON body would carry them as `\u001b` text).
    let body = format!("bad key {KEY} {hostile} try later");
    server.set_script(vec![Behaviour::Status(500, body)]);
    for args in [
        vec!["ask", QUESTION],
        vec!["doctor"],
        vec!["doctor", "--json"],
    ] {
        let o = run(d, &args, &env);
        assert_clean(&args.join(" "), &o);
        for (stream, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
            assert!(
                !String::from_utf8_lossy(bytes).contains(KEY),
                "{args:?} {stream} has the key"
            );
        }
    }
    let o = run(d, &["doctor"], &env);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("HTTP 500"), "the error body is shown: {text}");
    // Nothing the server sent back put the key into a log.
    for f in common::files_under(&d.join("logs")) {
        let log = std::fs::read_to_string(&f).unwrap();
        assert!(!log.contains(KEY), "the key is in {}", f.display());
    }
}

#[test]
fn links_out_of_the_corpus_are_not_indexed_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        corpus.join("2020-03-15_rates.md"),
        "# Rates\n\nThe committee lowered the interest rate.",
    )
    .unwrap();
    std::fs::write(
        notes.join("2021-01-01_private.md"),
        "# Private\n\nMy zanzibarquux password hint is the dog's name.",
    )
    .unwrap();
    std::os::unix::fs::symlink(&notes, corpus.join("notes")).unwrap();

    let data = tempfile::tempdir().unwrap();
    let report = index(data.path(), &corpus, &[]);
    assert_eq!(report["documents"], 1, "{report}");
    let skipped = report["skipped"].to_string();
    assert!(skipped.contains("follow_links_outside"), "{report}");
    let search = |env: &[(&str, &str)]| {
        let o = run(data.path(), &["search", "--json", "zanzibarquux"], env);
        assert!(o.status.success());
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        j["hits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|h| h["document"].as_str().unwrap_or("").contains("private"))
    };
    assert!(!search(&[]), "a file outside the corpus was indexed");

    // The config key lets them in.
    let allow = [("FATHOM_CORPUS_FOLLOW_LINKS_OUTSIDE", "true")];
    let report = index(data.path(), &corpus, &allow);
    assert_eq!(report["documents"], 2, "{report}");
    assert!(search(&allow));
}

#[test]
fn a_key_bound_for_plain_http_elsewhere_is_warned_about_and_files_are_private() {
    let data = tempfile::tempdir().unwrap();
    let d = data.path();
    // No index: `ask` stops before it would contact any server (nothing leaves this machine).
    let warn = |url: &str, key: Option<&str>| {
        let mut env = vec![("FATHOM_LLM_BASE_URL", url), ("FATHOM_LLM_MODEL", "m")];
        if let Some(k) = key {
            env.push(("FATHOM_API_KEY", k));
        }
        let o = run(d, &["ask", "what happened?"], &env);
        assert!(!o.status.success(), "there is no index");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(!err.contains(KEY), "{err}");
        err.contains("warning: the API key is sent unencrypted")
    };
    assert!(warn("http://192.0.2.10:8080/v1", Some(KEY)));
    assert!(warn("http://models.internal.example/v1", Some(KEY)));
    assert!(!warn("http://192.0.2.10:8080/v1", None));
    assert!(!warn("https://192.0.2.10:8080/v1", Some(KEY)));
    assert!(!warn("http://127.0.0.1:8080/v1", Some(KEY)));
    assert!(!warn("http://localhost:8080/v1", Some(KEY)));

    // Those runs wrote logs: owner-only files in an owner-only folder.
    let logs = d.join("logs");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&logs), 0o700);
    let files = common::files_under(&logs);
    assert!(!files.is_empty());
    for f in files {
        assert_eq!(mode(&f), 0o600, "{}", f.display());
    }
}
