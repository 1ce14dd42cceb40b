//! Citations as data. An answer's text carries `[n]` markers; [`Citation`]s say what each `n`
//! points to. This module is the one place that reads markers ([`markers`]) and the one place
//! that renders the `Sources:` block ([`sources_block`]), which only the edges use (the CLI,
//! exports, model prompts, the chat view): nothing parses Sources back out of text.

use super::types::Citation;

/// One `[n]` marker: its byte range in the text and its number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    pub start: usize,
    pub end: usize,
    pub n: usize,
}

/// Every `[n]` marker of `text` (one or more ASCII digits between brackets), in order.
pub fn markers(text: &str) -> Vec<Marker> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'[' {
            let digits = bytes[i + 1..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let close = i + 1 + digits;
            if digits > 0 && bytes.get(close) == Some(&b']') {
                if let Ok(n) = text[i + 1..close].parse() {
                    out.push(Marker {
                        start: i,
                        end: close + 1,
                        n,
                    });
                }
                i = close + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// The numbers of the markers of `text`, in order of appearance.
pub fn numbers(text: &str) -> Vec<usize> {
    markers(text).into_iter().map(|m| m.n).collect()
}

/// `text` without the markers `keep` rejects; the spaces just before a removed marker go too.
pub fn retain_markers(text: &str, keep: impl Fn(usize) -> bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for m in markers(text) {
        if keep(m.n) {
            continue;
        }
        out.push_str(text[from..m.start].trim_end_matches(' '));
        from = m.end;
    }
    out.push_str(&text[from..]);
    out
}

/// `text` without any marker.
pub fn without_markers(text: &str) -> String {
    retain_markers(text, |_| false)
}

/// Puts ` [n]` (or ` [n][m]`) before the sentence's closing punctuation.
pub fn with_markers(sentence: &str, ns: &[usize]) -> String {
    let marks: String = ns.iter().map(|n| format!("[{n}]")).collect();
    let s = sentence.trim_end();
    match s.char_indices().last() {
        Some((i, c)) if matches!(c, '.' | '?' | '!') => format!("{} {marks}{c}", &s[..i]),
        _ => format!("{s} {marks}"),
    }
}

/// One `Sources:` line: `[n] {document}, {date}, §{section} (chunk {chunk_id})`.
pub fn source_line(c: &Citation) -> String {
    let date = c
        .date
        .map(|d| d.to_string())
        .unwrap_or_else(|| "undated".into());
    let section = c.section.as_deref().unwrap_or("—");
    format!(
        "[{}] {}, {}, §{} (chunk {})",
        c.n, c.document, date, section, c.chunk_id
    )
}

/// The `Sources:` block, one [`source_line`] per citation.
pub fn sources_block(citations: &[Citation]) -> String {
    let mut out = String::from("Sources:");
    for c in citations {
        out.push('\n');
        out.push_str(&source_line(c));
    }
    out
}

/// An answer as the edges print it: the text, then its Sources when it has citations.
pub fn with_sources(answer: &str, citations: &[Citation]) -> String {
    if citations.is_empty() {
        answer.to_string()
    } else {
        format!("{}\n\n{}", answer.trim_end(), sources_block(citations))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Date;
    use proptest::prelude::*;

    #[test]
    fn finds_markers_and_ignores_other_brackets() {
        assert_eq!(numbers("a [1] b [23]. c [x] [] [4"), vec![1, 23]);
        assert_eq!(numbers("[1][2] and [003]"), vec![1, 2, 3]);
        let m = markers("ab [12] c");
        assert_eq!((m[0].start, m[0].end, m[0].n), (3, 7, 12));
        assert!(
            numbers("[99999999999999999999999]").is_empty(),
            "overflow is not a marker"
        );
    }

    #[test]
    fn removes_only_rejected_markers_with_their_space() {
        assert_eq!(
            retain_markers("Rates fell [1]. Prices rose [2]. See [note].", |n| n == 1),
            "Rates fell [1]. Prices rose. See [note]."
        );
        assert_eq!(without_markers("Held [1][3]. Cut  [2]!"), "Held. Cut!");
    }

    #[test]
    fn markers_go_before_the_full_stop() {
        assert_eq!(with_markers("Rates fell.", &[2]), "Rates fell [2].");
        assert_eq!(with_markers("No stop", &[1]), "No stop [1]");
        assert_eq!(with_markers("Held.", &[1, 3]), "Held [1][3].");
    }

    #[test]
    fn sources_use_the_documented_format() {
        let c = Citation {
            n: 1,
            chunk_id: "ab12".into(),
            document: "2020-03-15_statement.md".into(),
            date: Date::parse("2020-03-15"),
            section: Some("Federal Reserve issues FOMC statement".into()),
            score: 0.9,
        };
        assert_eq!(
            sources_block(std::slice::from_ref(&c)),
            "Sources:\n[1] 2020-03-15_statement.md, 2020-03-15, §Federal Reserve issues FOMC statement (chunk ab12)"
        );
        assert_eq!(
            with_sources("Cut [1].", &[c]).lines().next(),
            Some("Cut [1].")
        );
        assert_eq!(with_sources("No sources.", &[]), "No sources.");
    }

    proptest! {
        #[test]
        fn markers_round_trip_through_rendering(ns in proptest::collection::vec(1usize..500, 0..6), text in "[a-z ]{0,20}") {
            let s = with_markers(&format!("{text}."), &ns);
            prop_assert_eq!(numbers(&s), ns.clone());
            let stripped = without_markers(&s);
            prop_assert!(numbers(&stripped).is_empty());
        }
    }
}
