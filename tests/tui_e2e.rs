//! The real `fathom` binary in a real terminal: tmux runs it at 120×40 over six FOMC statements
//! (2019-2021) with the installed embedding model, and the test reads the screen with
//! `capture-pane` while it types. Needs tmux (`apt-get install tmux`); CI installs it.

mod common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// Indexing six statements with the model takes seconds; a busy 2-core machine may need more.
const READY: Duration = Duration::from_secs(180);
const ANSWER: Duration = Duration::from_secs(120);
const SCREEN: Duration = Duration::from_secs(10);

const STATEMENTS: [&str; 6] = [
    "2019-07-31_statement.md",
    "2019-09-18_statement.md",
    "2020-03-03_statement.md",
    "2020-03-15_statement.md",
    "2021-01-27_statement.md",
    "2021-12-15_statement.md",
];

/// A private tmux server (its own socket), killed on drop so a failing test leaves nothing behind.
struct Tmux {
    socket: String,
    /// The socket file, removed on drop (tmux leaves it behind after `kill-server`).
    socket_path: Option<std::path::PathBuf>,
}

impl Tmux {
    fn start(width: u16, height: u16, shell_command: &str) -> Tmux {
        match Command::new("tmux").arg("-V").output() {
            Ok(o) if o.status.success() => {}
            _ => panic!(
                "tmux is required for the end-to-end UI test and was not found: install it \
                 (e.g. `apt-get install tmux`)"
            ),
        }
        let mut tmux = Tmux {
            socket: format!("fathom-e2e-{}-{}", std::process::id(), unique()),
            socket_path: None,
        };
        let (w, h) = (width.to_string(), height.to_string());
        // remain-on-exit keeps the pane after fathom exits, so its exit status and the screen
        // it left behind can be checked.
        let o = tmux.run(&[
            "new-session",
            "-d",
            "-s",
            "e2e",
            "-x",
            &w,
            "-y",
            &h,
            shell_command,
            ";",
            "set-option",
            "-g",
            "remain-on-exit",
            "on",
        ]);
        assert!(o.status.success(), "tmux new-session: {}", stderr(&o));
        let path = tmux.pane("#{socket_path}");
        tmux.socket_path = (!path.is_empty()).then(|| path.into());
        tmux
    }

    fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    fn capture(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "e2e"]).stdout).into_owned()
    }

    fn pane(&self, format: &str) -> String {
        let o = self.run(&["display-message", "-p", "-t", "e2e", format]);
        String::from_utf8_lossy(&o.stdout).trim().to_string()
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "e2e"];
        args.extend_from_slice(keys);
        let o = self.run(&args);
        assert!(o.status.success(), "send-keys {keys:?}: {}", stderr(&o));
    }

    fn type_text(&self, text: &str) {
        let o = self.run(&["send-keys", "-t", "e2e", "-l", text]);
        assert!(o.status.success(), "send-keys -l: {}", stderr(&o));
    }

    /// Polls the screen until `pred` holds; on timeout, fails showing the last screen.
    fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!(
                    "timed out after {timeout:?} waiting for {what}; pane dead: {}; screen:\n{screen}",
                    self.pane("#{pane_dead}")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
        if let Some(path) = &self.socket_path {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `fathom --corpus DIR` under `env -i` with exactly the test environment of `fathom_cmd`.
fn shell_command(data: &Path, corpus: &Path) -> String {
    let cmd = common::fathom_cmd(data);
    let mut parts = vec!["env".to_string(), "-i".to_string()];
    for (k, v) in cmd.get_envs() {
        if let Some(v) = v {
            parts.push(format!("{}={}", k.to_string_lossy(), v.to_string_lossy()));
        }
    }
    parts.push("TERM=screen-256color".into());
    parts.push(cmd.get_program().to_string_lossy().into_owned());
    parts.push("--corpus".into());
    parts.push(corpus.to_string_lossy().into_owned());
    parts.iter().map(|p| quote(p)).collect::<Vec<_>>().join(" ")
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// The UI's status bar is up (the chat, not the progress view).
fn chat_ready(s: &str) -> bool {
    s.contains("F1 help") && s.contains("chunks │")
}

/// The last occurrence of `question_start` is followed by a final-reason line (" ── reason"),
/// and no query is running.
fn answered(s: &str, question_start: &str) -> bool {
    let Some(i) = s.rfind(question_start) else {
        return false;
    };
    let reason_line = s[i..]
        .match_indices(" ── ")
        .any(|(j, m)| s[i + j + m.len()..].starts_with(|c: char| c.is_ascii_alphabetic()));
    reason_line && !s.contains("running ")
}

#[test]
fn a_user_session_in_tmux() {
    let corpus = tempfile::tempdir().unwrap();
    for name in STATEMENTS {
        std::fs::copy(common::fomc_dir().join(name), corpus.path().join(name)).unwrap();
    }
    let data = tempfile::tempdir().unwrap();
    // The pane's shell writes fathom's exit status to a file: tmux reports a dead pane's status
    // only once it has reaped the process, which on a busy machine can take longer than a test
    // should wait.
    let status_file = data.path().join("exit-status");
    let command = format!(
        "{}; echo $? > {}",
        shell_command(data.path(), corpus.path()),
        quote(&status_file.to_string_lossy())
    );
    let tmux = Tmux::start(120, 40, &command);

    // The UI opens before the index is ready: the progress view comes first.
    let first = tmux.wait_for("the first frame", SCREEN, |s| {
        s.contains("preparing the index") || chat_ready(s)
    });
    assert!(
        first.contains("preparing the index"),
        "the progress view should show while indexing a new corpus:\n{first}"
    );
    let screen = tmux.wait_for("the chat", READY, chat_ready);
    assert!(screen.contains("years: all"), "{screen}");

    // Ask; the answer cites [1] and the citations panel lists the source.
    let q1 = "What did the Committee decide about the target range for the federal funds rate?";
    tmux.type_text(q1);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("the first answer", ANSWER, |s| answered(s, "You: What did"));
    let after = &screen[screen.rfind("You: What did").unwrap_or(0)..];
    assert!(after.contains("[1]"), "no [1] in the answer:\n{screen}");
    assert!(
        screen.contains("[1] 20") && screen.contains("_statement.md"),
        "no citation entry in the citations panel:\n{screen}"
    );

    // Passage viewer: focus the citations (Tab twice from the input), Enter on [1].
    tmux.keys(&["Tab", "Tab", "Enter"]);
    tmux.wait_for("the passage viewer", SCREEN, |s| s.contains("Passage: "));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the passage viewer to close", SCREEN, |s| {
        !s.contains("Passage: ")
    });
    tmux.keys(&["Tab", "Tab"]);

    // Year picker: the first year is 2019; select it and close; the status bar shows it.
    tmux.keys(&["F2"]);
    let screen = tmux.wait_for("the year picker", SCREEN, |s| s.contains("Years: Space"));
    assert!(
        screen.contains("2019") && screen.contains("2020") && screen.contains("2021"),
        "{screen}"
    );
    tmux.keys(&["Space"]);
    tmux.keys(&["Enter"]);
    tmux.wait_for("years: 2019 in the status bar", SCREEN, |s| {
        s.contains("years: 2019 │") && !s.contains("Years: Space")
    });

    let q2 = "Why did the Committee cut rates in 2019?";
    tmux.type_text(q2);
    tmux.keys(&["Enter"]);
    let screen = tmux.wait_for("the second answer", ANSWER, |s| answered(s, "You: Why did"));
    let after = &screen[screen.rfind("You: Why did").unwrap_or(0)..];
    assert!(after.contains("(years 2019)"), "{screen}");

    // The inspector shows the stages of the cached state.
    tmux.keys(&["F3"]);
    let screen = tmux.wait_for("the inspector", SCREEN, |s| s.contains("Inspector: "));
    assert!(
        screen.contains("plan") && screen.contains("retrieve"),
        "{screen}"
    );
    tmux.keys(&["Escape"]);
    // Closed before the next key: an Escape and F1's own escape sequence read in one go (a
    // loaded machine) would be taken for Alt+Escape and the text "OP".
    tmux.wait_for("the inspector to close", SCREEN, |s| {
        !s.contains("Inspector: ")
    });

    // Help.
    tmux.keys(&["F1"]);
    tmux.wait_for("the help", SCREEN, |s| s.contains("Help (Esc to close)"));
    tmux.keys(&["Escape"]);
    tmux.wait_for("the help to close", SCREEN, |s| {
        !s.contains("Help (Esc to close)")
    });

    // A tiny window and back: still alive, and the UI redraws.
    let o = tmux.run(&["resize-window", "-t", "e2e", "-x", "20", "-y", "5"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The status bar (backend first) on the last of 5 rows means fathom redrew at the new size.
    tmux.wait_for("the 20×5 redraw", SCREEN, |s| {
        s.lines().count() <= 5 && s.lines().last().is_some_and(|l| l.starts_with("offline"))
    });
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(tmux.pane("#{pane_dead}"), "0", "fathom died at 20×5");
    let o = tmux.run(&["resize-window", "-t", "e2e", "-x", "120", "-y", "40"]);
    assert!(o.status.success(), "{}", stderr(&o));
    tmux.wait_for("the UI back at 120×40", SCREEN, chat_ready);
    assert_eq!(tmux.pane("#{pane_dead}"), "0");

    // Ctrl-C quits with status 0 and leaves the normal screen.
    tmux.keys(&["C-c"]);
    let deadline = Instant::now() + SCREEN;
    while tmux.pane("#{pane_dead}") != "1" {
        assert!(Instant::now() < deadline, "fathom did not exit on Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = loop {
        match std::fs::read_to_string(&status_file) {
            Ok(s) if s.ends_with('\n') => break s.trim().to_string(),
            _ if Instant::now() > deadline => panic!("fathom's exit status was never written"),
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    assert_eq!(status, "0", "fathom should exit 0 on Ctrl-C");
    assert_eq!(
        tmux.pane("#{alternate_on}"),
        "0",
        "still on the alternate screen"
    );
    let screen = tmux.capture();
    assert!(!screen.contains("F1 help"), "UI left on screen:\n{screen}");
    assert!(!screen.contains("panicked"), "{screen}");

    // The first frame's time from process start is logged (never shown on screen).
    let logs = fathom::logging::log_dir(data.path());
    let mut log = String::new();
    for entry in std::fs::read_dir(&logs).unwrap() {
        log.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default());
    }
    let line = log
        .lines()
        .find(|l| l.contains("first_frame_ms="))
        .unwrap_or_else(|| panic!("no first_frame_ms in the log:\n{log}"));
    eprintln!("{line}");
    drop(tmux);

    // Both turns were saved as they finished, the second with its year filter.
    let sessions = fathom::session::list(data.path()).unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let saved = fathom::session::load(data.path(), &sessions[0].session_id).unwrap();
    assert!(saved.damaged.is_empty(), "{:?}", saved.damaged);
    let questions: Vec<&str> = saved.turns.iter().map(|t| t.question.as_str()).collect();
    assert_eq!(questions, vec![q1, q2]);
    assert_eq!(saved.turns[1].requested_years, vec![2019]);
    assert!(!saved.turns[0].result.citations.is_empty());

    // `fathom --session ID` reopens the conversation with both answers, without asking again.
    let reopen = format!(
        "{} --session {}",
        shell_command(data.path(), corpus.path()),
        quote(&sessions[0].session_id)
    );
    let tmux = Tmux::start(120, 40, &reopen);
    // The status bar shows the "reopened" notice in place of the key hints.
    let screen = tmux.wait_for("the reopened session", READY, |s| {
        s.contains("chunks │") && s.contains("You: Why did")
    });
    // The first answer is above the fold; the notice counts both turns.
    assert!(screen.contains("reopened sess_"), "{screen}");
    assert!(screen.contains("(2 turns)"), "{screen}");
    tmux.keys(&["C-c"]);
}
