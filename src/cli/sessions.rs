//! `fathom sessions`: the saved conversations, newest first.

use fathom::config::Config;
use fathom::session::{self, SessionSummary};
use std::process::ExitCode;

/// The table fits this many columns.
const WIDTH: usize = 100;

#[derive(clap::Args, Debug)]
pub struct SessionsArgs {
    /// Print the list as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(cfg: &Config, args: &SessionsArgs) -> anyhow::Result<ExitCode> {
    let sessions = session::list(&cfg.paths.data_dir)?;
    if args.json {
        super::print_json(&serde_json::to_string_pretty(&sessions)?);
    } else if sessions.is_empty() {
        outln!(
            "No sessions yet in {}. `fathom ask --session ID \"question\"` or the terminal UI starts one.",
            session::sessions_dir(&cfg.paths.data_dir).display()
        );
    } else {
        out!("{}", table(&sessions));
    }
    Ok(ExitCode::SUCCESS)
}

/// One header row and one row per session, each at most [`WIDTH`] characters.
fn table(sessions: &[SessionSummary]) -> String {
    let head = format!(
        "{:<21}  {:<16}  {:>5}  {:>7}  ",
        "SESSION", "CREATED (UTC)", "TURNS", "DAMAGED"
    );
    let room = WIDTH.saturating_sub(head.chars().count());
    let mut out = format!("{head}FIRST QUESTION\n");
    for s in sessions {
        // "2026-11-05T12:34:56.789Z" → "2026-11-05 12:34": enough to tell sessions apart.
        let created = s
            .created_at
            .as_deref()
            .map(|c| c.get(..16).unwrap_or(c).replacen('T', " ", 1))
            .unwrap_or_else(|| "unknown".into());
        let damaged = if s.damaged_lines == 0 {
            "-".to_string()
        } else {
            s.damaged_lines.to_string()
        };
        let question = s.first_question.as_deref().unwrap_or("(no turns)");
        out.push_str(&format!(
            "{:<21}  {:<16}  {:>5}  {:>7}  {}\n",
            s.session_id,
            created,
            s.turns,
            damaged,
            truncate(question, room)
        ));
    }
    out
}

/// `s` on one line, cut to `max` characters with an ellipsis.
fn truncate(s: &str, max: usize) -> String {
    let line = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if line.chars().count() <= max {
        return line;
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_fit_the_width_and_show_damage() {
        let rows = vec![
            SessionSummary {
                session_id: "sess_0123456789abcdef".into(),
                created_at: Some("2026-11-05T12:34:56.789Z".into()),
                first_question: Some("What did the Committee decide? ".repeat(10)),
                turns: 12,
                damaged_lines: 2,
            },
            SessionSummary {
                session_id: "sess_aaaaaaaaaaaaaaaa".into(),
                created_at: None,
                first_question: None,
                turns: 0,
                damaged_lines: 0,
            },
        ];
        let t = table(&rows);
        for line in t.lines() {
            assert!(line.chars().count() <= WIDTH, "{line}");
        }
        let first = t.lines().nth(1).unwrap();
        assert!(
            first.starts_with("sess_0123456789abcdef  2026-11-05 12:34     12        2  What did")
        );
        assert!(first.ends_with('…'));
        assert!(t.contains("(no turns)") && t.contains("unknown"));
    }
}
