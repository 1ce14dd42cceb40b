//! A session as a document: Markdown to read or share, JSON to process.

use super::{LoadedSession, TurnRecord};
use crate::orchestrator::api::sources_block;
use std::fmt::Write;

/// The session as Markdown: a title with its date, then per turn the question, the years, the
/// answer with its sources, and the final reason with the confidence. Control characters and
/// escape sequences from documents or the model are left out (Markdown is read on terminals
/// too); the session file keeps the text exactly.
pub fn to_markdown(session: &LoadedSession) -> String {
    crate::text_safety::terminal_safe(&markdown(session)).into_owned()
}

fn markdown(session: &LoadedSession) -> String {
    let mut out = format!("# fathom session {}\n\n", session.session_id);
    let n = session.turns.len();
    let turns = format!("{n} turn{}", if n == 1 { "" } else { "s" });
    match &session.created_at {
        Some(c) => {
            let _ = writeln!(out, "Started {c} · {turns}");
        }
        None => {
            let _ = writeln!(out, "Start date unknown · {turns}");
        }
    }
    for turn in &session.turns {
        out.push('\n');
        out.push_str(&turn_markdown(turn));
    }
    if !session.damaged.is_empty() {
        let _ = write!(
            out,
            "\n---\n\n{} damaged line{} of the session file could not be read:\n\n",
            session.damaged.len(),
            if session.damaged.len() == 1 { "" } else { "s" }
        );
        for d in &session.damaged {
            let _ = writeln!(out, "- line {}: {}", d.line, one_line(&d.reason));
        }
    }
    out
}

fn turn_markdown(turn: &TurnRecord) -> String {
    let r = &turn.result;
    let mut out = format!("## {}. {}\n\n", turn.index + 1, one_line(&turn.question));
    if !turn.requested_years.is_empty() {
        let years: Vec<String> = turn.requested_years.iter().map(i32::to_string).collect();
        let _ = writeln!(out, "Years: {}\n", years.join(", "));
    }
    out.push_str(r.answer.trim_end());
    out.push('\n');
    if !r.citations.is_empty() {
        out.push('\n');
        out.push_str(&sources_block(&r.citations));
        out.push('\n');
    }
    let reason = r.final_reason.as_str();
    let _ = match r.confidence {
        Some(c) => writeln!(out, "\n*{reason} · confidence {c:.2}*"),
        None => writeln!(out, "\n*{reason}*"),
    };
    out
}

/// Newlines would break a heading or a list item.
fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The session as pretty JSON: `{session_id, created_at, turns: [...], damaged: [...]}`.
/// Parses back into an equal [`LoadedSession`]; characters a terminal would obey are written as
/// `\u…` escapes (see [`crate::text_safety::json_safe`]).
pub fn to_json(session: &LoadedSession) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(session).map(|j| crate::text_safety::json_safe(&j).into_owned())
}
