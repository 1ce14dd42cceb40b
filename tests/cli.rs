//! The `fathom` binary as a user runs it: JSON shapes, exit codes, error messages.

mod common;

use std::path::Path;
use std::process::Output;

fn corpus() -> tempfile::TempDir {
    let c = tempfile::tempdir().unwrap();
    std::fs::write(
        c.path().join("2019-05-01_birds.md"),
        "# Birds\n\nThe heron stands in the shallow river waiting for fish.",
    )
    .unwrap();
    std::fs::write(
        c.path().join("2020-06-01_rates.md"),
        "# Rates\n\nThe committee lowered the interest rate to support employment.",
    )
    .unwrap();
    std::fs::write(
        c.path().join("2021-07-01_space.md"),
        "# Space\n\nThe rocket carried a telescope into orbit around the sun.",
    )
    .unwrap();
    std::fs::write(
        c.path().join("2020-09-01_rates.md"),
        "# Rates again\n\nThe committee kept the interest rate low and said it would stay low until employment recovers.",
    )
    .unwrap();
    c
}

fn run(data: &Path, args: &[&str]) -> Output {
    common::fathom_cmd(data)
        .args(args)
        .output()
        .expect("fathom runs")
}

fn stdout_json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
}

#[test]
fn index_and_search_print_the_documented_json() {
    let c = corpus();
    let data = tempfile::tempdir().unwrap();
    let corpus = c.path().to_str().unwrap();
    let o = run(data.path(), &["--corpus", corpus, "index", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = stdout_json(&o);
    for key in ["documents", "chunks", "years", "dense", "seconds"] {
        assert!(j.get(key).is_some(), "missing {key}: {j}");
    }
    assert_eq!(j["documents"], 4);
    assert_eq!(j["years"]["2020"], 2);
    assert_eq!(j["dense"], true);

    let o = run(
        data.path(),
        &[
            "search",
            "--json",
            "--years",
            "2020,2021",
            "--k",
            "2",
            "interest rate",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j = stdout_json(&o);
    assert_eq!(j["year_mode"], "explicit");
    assert_eq!(j["requested_years"], serde_json::json!([2020, 2021]));
    let hits = j["hits"].as_array().unwrap();
    assert!(!hits.is_empty() && hits.len() <= 2);
    assert!(hits[0]["document"].as_str().unwrap().ends_with("_rates.md"));
    for key in [
        "document",
        "date",
        "section",
        "chunk_id",
        "dense_rank",
        "dense_score",
        "sparse_rank",
        "sparse_score",
        "fused_score",
        "rerank_score",
        "snippet",
    ] {
        assert!(hits[0].get(key).is_some(), "hit lacks {key}");
    }
    assert!(hits.iter().all(|h| h["date"].as_str().unwrap() >= "2020"));
    let o = run(data.path(), &["search", "--json", "interest rate"]);
    assert_eq!(stdout_json(&o)["year_mode"], "none");
}

#[test]
fn config_errors_name_key_file_and_line_and_exit_2() {
    let data = tempfile::tempdir().unwrap();
    let cfg = data.path().join("bad.toml");
    std::fs::write(&cfg, "[retrieval]\nk = 5\nrrf = 2\n").unwrap();
    let o = run(
        data.path(),
        &["--config", cfg.to_str().unwrap(), "search", "x"],
    );
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{}:3:", cfg.display())) && err.contains("retrieval.rrf"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");

    let o = common::fathom_cmd(data.path())
        .env("FATHOM_RETRIEVAL_K", "zero")
        .args(["search", "x"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("FATHOM_RETRIEVAL_K"));
    let o = run(data.path(), &["search", "--years", "twenty", "x"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn missing_and_damaged_indexes_say_how_to_rebuild() {
    let c = corpus();
    let data = tempfile::tempdir().unwrap();
    let o = run(data.path(), &["search", "heron"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("fathom index"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );

    run(
        data.path(),
        &["--corpus", c.path().to_str().unwrap(), "index"],
    );
    // Cut the end off every generation's chunk table, so no whole generation is left to serve.
    let tables: Vec<_> = common::files_under(&data.path().join("index"))
        .into_iter()
        .filter(|p| p.ends_with("chunks.jsonl"))
        .collect();
    assert!(!tables.is_empty());
    for table in tables {
        let len = std::fs::metadata(&table).unwrap().len();
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open(&table)
            .unwrap();
        f.set_len(len - 7).unwrap();
    }
    let o = run(data.path(), &["search", "heron"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("damaged") && err.contains("fathom index --rebuild"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
}

#[test]
fn without_a_model_fathom_says_so_once_and_uses_bm25() {
    let c = corpus();
    let data = tempfile::tempdir().unwrap();
    let o = common::fathom_cmd(data.path())
        .env("FATHOM_MODEL_DIR", data.path().join("no-model"))
        .args(["--corpus", c.path().to_str().unwrap(), "index", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success());
    assert_eq!(stdout_json(&o)["dense"], false);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("dense retrieval is off").count(), 1, "{err}");
    assert!(err.contains("make model"), "{err}");
    let o = common::fathom_cmd(data.path())
        .env("FATHOM_MODEL_DIR", data.path().join("no-model"))
        .args(["search", "--json", "telescope"])
        .output()
        .unwrap();
    let j = stdout_json(&o);
    assert_eq!(j["dense"], false);
    assert_eq!(j["hits"][0]["document"], "2021-07-01_space.md");
}

#[test]
fn ask_prints_the_result_and_exits_by_state() {
    let c = corpus();
    let data = tempfile::tempdir().unwrap();
    run(
        data.path(),
        &["--corpus", c.path().to_str().unwrap(), "index"],
    );
    let o = run(
        data.path(),
        &[
            "ask",
            "--json",
            "What did the committee do to the interest rate?",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let j = stdout_json(&o);
    for key in [
        "session_id",
        "query_id",
        "state",
        "final_reason",
        "confidence",
        "answer",
        "citations",
        "applicability_note",
        "uncertainty_note",
        "plan",
        "retrieve",
        "stages",
        "cached_state",
    ] {
        assert!(j.get(key).is_some(), "result lacks {key}");
    }
    assert_eq!(j["state"], "success");
    let cited = j["citations"][0]["document"].as_str().unwrap();
    assert!(cited.ends_with("_rates.md"), "{cited}");
    for key in ["n", "chunk_id", "document", "date", "section", "score"] {
        assert!(j["citations"][0].get(key).is_some(), "citation lacks {key}");
    }
    assert_eq!(j["plan"]["coherence"], "coherent");
    assert_eq!(j["retrieve"]["year_mode"], "none");
    assert!(j["stages"][0].get("ms").is_some() && j["stages"][0].get("fallback").is_some());

    let o = run(data.path(), &["ask", "--events", "zzxq vvbnm qwrtp"]);
    assert_eq!(o.status.code(), Some(1), "incoherent input fails");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.first().unwrap()["event"], "query_started");
    assert_eq!(lines.last().unwrap()["event"], "finished");
    assert!(lines
        .iter()
        .any(|l| l["event"] == "stage_started" && l["stage"] == "plan"));

    let o = run(data.path(), &["ask"]);
    assert_eq!(o.status.code(), Some(2), "usage error");
}

/// `eval --answers --candidates` records what synthesize weighed for every question: the learned
/// ranker's features for each candidate sentence; with `FATHOM_RANKER_WEIGHTS` naming an empty
/// model the hand-weighted score decides, and an unreadable one is refused quietly (logged).
#[test]
fn eval_records_candidates_and_says_which_scorer_ranked_them() {
    let c = corpus();
    let data = tempfile::tempdir().unwrap();
    let corpus = c.path().to_str().unwrap();
    let qa = data.path().join("qa.jsonl");
    std::fs::write(
        &qa,
        r#"{"id": "why-1", "kind": "reason", "question": "Why did the committee keep the interest rate low in September 2020?", "cites": ["2020-09-01_rates.md"], "expect_all": ["employment"], "expect_any": []}
"#,
    )
    .unwrap();
    let record = |weights: Option<&Path>, out: &Path| {
        let mut cmd = common::fathom_cmd(data.path());
        if let Some(w) = weights {
            cmd.env("FATHOM_RANKER_WEIGHTS", w);
        }
        let o = cmd
            .args(["--corpus", corpus, "eval", "--qa"])
            .arg(&qa)
            .args(["--answers", "--json", "--candidates"])
            .arg(out)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let text = std::fs::read_to_string(out).unwrap();
        let lines: Vec<serde_json::Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 1, "{text}");
        lines.into_iter().next().unwrap()
    };
    let shipped = record(None, &data.path().join("shipped.jsonl"));
    assert_eq!(shipped["id"], "why-1");
    assert_eq!(shipped["asks"], "reason");
    assert_eq!(shipped["scored_by"], "learned");
    let cands = &shipped["candidates"];
    assert!(cands["model"]
        .as_str()
        .unwrap()
        .starts_with("all-MiniLM-L6-v2"));
    let names = cands["features"].as_array().unwrap().len();
    let rows = cands["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        assert_eq!(row["features"].as_array().unwrap().len(), names, "{row}");
        let p = row["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p), "a probability: {p}");
    }

    let empty = data.path().join("empty.json");
    std::fs::write(&empty, r#"{"model": "", "ranker": null}"#).unwrap();
    let hand = record(Some(&empty), &data.path().join("hand.jsonl"));
    assert_eq!(hand["scored_by"], "hand");
    let garbled = data.path().join("garbled.json");
    std::fs::write(&garbled, "{not json").unwrap();
    let fallback = record(Some(&garbled), &data.path().join("garbled.jsonl"));
    assert_eq!(fallback["scored_by"], "hand");
}
