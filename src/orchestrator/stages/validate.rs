//! Validate: every `[n]` in the answer must name a citation whose chunk was retrieved. Invalid
//! markers are removed from the text and reported; unused citations are dropped.

use super::StageError;
use crate::orchestrator::state::QueryState;
use serde_json::json;
use std::collections::HashSet;

/// The numbers of the `[n]` markers in `text`, in order of appearance.
pub fn markers(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        match after.find(']') {
            Some(close) if close > 0 && after[..close].bytes().all(|b| b.is_ascii_digit()) => {
                if let Ok(n) = after[..close].parse() {
                    out.push(n);
                }
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// Removes ` [n]` markers for numbers not in `valid`.
pub fn strip_markers(text: &str, valid: &HashSet<usize>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let after = &rest[open + 1..];
        let close = after.find(']');
        let number = close
            .filter(|&c| c > 0 && after[..c].bytes().all(|b| b.is_ascii_digit()))
            .and_then(|c| after[..c].parse::<usize>().ok());
        match (number, close) {
            (Some(n), Some(c)) if !valid.contains(&n) => {
                out.push_str(rest[..open].trim_end_matches(' '));
                rest = &after[c + 1..];
            }
            _ => {
                out.push_str(&rest[..open + 1]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

pub fn run(st: &mut QueryState) -> Result<serde_json::Value, StageError> {
    let retrieved: HashSet<&str> = st
        .retrieved_chunks
        .iter()
        .map(|h| h.chunk_id.as_str())
        .collect();
    let valid: HashSet<usize> = st
        .citations
        .iter()
        .filter(|c| retrieved.contains(c.chunk_id.as_str()))
        .map(|c| c.n)
        .collect();
    let used = markers(&st.answer);
    let mut invalid: Vec<String> = Vec::new();
    for n in &used {
        if !valid.contains(n) {
            let what = match st.citations.iter().find(|c| c.n == *n) {
                Some(c) => format!("[{n}] cites chunk {} which was not retrieved", c.chunk_id),
                None => format!("[{n}] has no source"),
            };
            if !invalid.contains(&what) {
                invalid.push(what);
            }
        }
    }
    st.answer = strip_markers(&st.answer, &valid);
    let used: HashSet<usize> = markers(&st.answer).into_iter().collect();
    let before = st.citations.len();
    st.citations
        .retain(|c| valid.contains(&c.n) && used.contains(&c.n));
    for (_, ns) in &mut st.answer_sentences {
        ns.retain(|n| valid.contains(n));
    }
    st.invalid_citations = invalid.clone();
    Ok(json!({
        "valid": st.citations.iter().map(|c| c.n).collect::<Vec<_>>(),
        "invalid": invalid,
        "dropped": before - st.citations.len(),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_markers_and_ignores_other_brackets() {
        assert_eq!(markers("a [1] b [23]. c [x] [] [4"), vec![1, 23]);
    }

    fn hit(id: &str) -> crate::index::retrieve::Hit {
        crate::index::retrieve::Hit {
            rank: 1,
            chunk_id: id.into(),
            document: "d.md".into(),
            title: "t".into(),
            date: None,
            year: None,
            section: None,
            dense_rank: None,
            dense_score: None,
            sparse_rank: None,
            sparse_score: None,
            fused_score: 0.0,
            rerank_score: 0.0,
            recency_boost: 0.0,
            date_bonus: 0.0,
            score: 0.0,
            snippet: String::new(),
        }
    }

    fn citation(n: usize, id: &str) -> crate::orchestrator::types::Citation {
        crate::orchestrator::types::Citation {
            n,
            chunk_id: id.into(),
            document: "d.md".into(),
            date: None,
            section: None,
            score: 0.5,
        }
    }

    #[test]
    fn citations_to_unretrieved_chunks_and_unknown_numbers_are_removed() {
        let mut st = QueryState::new("s", "q", "question", vec![]);
        st.retrieved_chunks = vec![hit("aaa"), hit("bbb")];
        st.citations = vec![citation(1, "aaa"), citation(2, "zzz"), citation(4, "bbb")];
        st.answer = "First claim [1]. Invented claim [2]. Ghost claim [3].".into();
        let slice = run(&mut st).unwrap();
        assert_eq!(st.answer, "First claim [1]. Invented claim. Ghost claim.");
        assert_eq!(
            st.citations.iter().map(|c| c.n).collect::<Vec<_>>(),
            vec![1],
            "unused [4] is dropped too"
        );
        assert_eq!(st.invalid_citations.len(), 2);
        assert!(st.invalid_citations[0].contains("zzz") && st.invalid_citations[1].contains("[3]"));
        assert_eq!(slice["valid"], serde_json::json!([1]));
    }

    #[test]
    fn strips_only_invalid_markers() {
        let valid: HashSet<usize> = [1].into();
        assert_eq!(
            strip_markers("Rates fell [1]. Prices rose [2]. See [note].", &valid),
            "Rates fell [1]. Prices rose. See [note]."
        );
    }
}
