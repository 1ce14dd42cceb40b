//! Validate: every `[n]` in the answer must name a citation whose chunk was retrieved, and the
//! passage it names must support the sentence it stands on ([`support`]: the sentence's
//! figures, dates and names appear in the passage, and half its content words). Markers that
//! fail are removed from the text and reported; unused citations are dropped. An answer never
//! loses its only citation this way: when no marker of any sentence is supported, the best
//! supported one stays (and is reported as such).
//!
//! Slice: `valid` (the numbers kept), `invalid` (what was wrong), `dropped`, `unsupported`
//! (the `[n]` removed from sentences whose passage does not state them) and `kept_unsupported`.

pub mod support;

use crate::orchestrator::citations::{numbers, retain_markers};
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use serde_json::json;
use std::collections::{HashMap, HashSet};
use support::{cited_passage, support};

pub const ID: NodeId = NodeId::new("validate");

pub struct Validate;

impl Stage for Validate {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let passages = cited_passages(cx, work);
        Ok(StageOutcome::new(validate(work, &passages)))
    }
}

/// The passage text of every citation whose chunk was retrieved, as its citation shows it, by
/// marker number.
fn cited_passages(cx: &StageCx, work: &Work) -> HashMap<usize, String> {
    work.answer
        .citations
        .iter()
        .filter_map(|c| {
            let h = work
                .retrieval
                .hits
                .iter()
                .find(|h| h.chunk_id == c.chunk_id)?;
            let p = cx.retriever.passage(&c.chunk_id)?;
            Some((
                c.n,
                cited_passage(h.date, &h.title, h.section.as_deref(), &p.text),
            ))
        })
        .collect()
}

fn validate(work: &mut Work, passages: &HashMap<usize, String>) -> serde_json::Value {
    let retrieved: HashSet<&str> = work
        .retrieval
        .hits
        .iter()
        .map(|h| h.chunk_id.as_str())
        .collect();
    let a = &mut work.answer;
    let valid: HashSet<usize> = a
        .citations
        .iter()
        .filter(|c| retrieved.contains(c.chunk_id.as_str()))
        .map(|c| c.n)
        .collect();
    let mut invalid: Vec<String> = Vec::new();
    for n in numbers(&a.text) {
        if !valid.contains(&n) {
            let what = match a.citations.iter().find(|c| c.n == n) {
                Some(c) => format!("[{n}] cites chunk {} which was not retrieved", c.chunk_id),
                None => format!("[{n}] has no source"),
            };
            if !invalid.contains(&what) {
                invalid.push(what);
            }
        }
    }
    a.text = retain_markers(&a.text, |n| valid.contains(&n));
    for s in &mut a.sentences {
        s.citations.retain(|n| valid.contains(n));
        s.display = retain_markers(&s.display, |n| valid.contains(&n));
    }
    // Support: which (sentence, n) pairs the passage of n states.
    let mut unsupported: Vec<(usize, usize)> = Vec::new();
    let mut best: Option<(f64, usize, usize)> = None;
    let mut any_supported = false;
    for (i, s) in a.sentences.iter().enumerate() {
        for &n in &s.citations {
            let sup = passages.get(&n).map(|p| support(&s.display, p));
            match sup {
                Some(sup) if sup.holds() => any_supported = true,
                other => {
                    let score = other.map_or(0.0, |s| s.score());
                    if best.is_none_or(|(b, _, _)| score > b) {
                        best = Some((score, i, n));
                    }
                    unsupported.push((i, n));
                }
            }
        }
    }
    // No answer loses its only citation: keep the best of the unsupported markers.
    let kept = match best {
        Some((_, i, n)) if !any_supported => {
            unsupported.retain(|&p| p != (i, n));
            Some(n)
        }
        _ => None,
    };
    let mut removed: Vec<String> = Vec::new();
    for (i, s) in a.sentences.iter_mut().enumerate() {
        let drop: Vec<usize> = unsupported
            .iter()
            .filter(|(j, _)| *j == i)
            .map(|(_, n)| *n)
            .collect();
        if drop.is_empty() {
            continue;
        }
        let before = s.display.clone();
        s.citations.retain(|n| !drop.contains(n));
        s.display = retain_markers(&s.display, |n| !drop.contains(&n));
        // The same sentence in the answer text (model answers keep their own layout).
        if let Some(at) = a.text.find(&before) {
            a.text.replace_range(at..at + before.len(), &s.display);
        }
        removed.extend(drop.iter().map(|n| {
            format!(
                "[{n}] does not state: {}",
                crate::orchestrator::citations::without_markers(&s.display)
            )
        }));
    }
    let used: HashSet<usize> = numbers(&a.text).into_iter().collect();
    let before = a.citations.len();
    a.citations
        .retain(|c| valid.contains(&c.n) && used.contains(&c.n));
    a.invalid_citations = invalid.clone();
    json!({
        "valid": a.citations.iter().map(|c| c.n).collect::<Vec<_>>(),
        "invalid": invalid,
        "dropped": before - a.citations.len(),
        "unsupported": removed,
        "kept_unsupported": kept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::Hit;
    use crate::orchestrator::state::AnswerSentence;
    use crate::orchestrator::types::Citation;

    fn hit(id: &str) -> Hit {
        Hit {
            rank: 1,
            chunk_id: id.into(),
            document: "d.md".into(),
            title: "t".into(),
            ..Hit::default()
        }
    }

    fn citation(n: usize, id: &str) -> Citation {
        Citation {
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
        let mut w = Work::default();
        w.retrieval.hits = vec![hit("aaa"), hit("bbb")];
        w.answer.citations = vec![citation(1, "aaa"), citation(2, "zzz"), citation(4, "bbb")];
        w.answer.text = "First claim [1]. Invented claim [2]. Ghost claim [3].".into();
        let slice = validate(&mut w, &HashMap::new());
        assert_eq!(
            w.answer.text,
            "First claim [1]. Invented claim. Ghost claim."
        );
        assert_eq!(
            w.answer.citations.iter().map(|c| c.n).collect::<Vec<_>>(),
            vec![1],
            "unused [4] is dropped too"
        );
        assert_eq!(w.answer.invalid_citations.len(), 2);
        assert!(w.answer.invalid_citations[0].contains("zzz"));
        assert!(w.answer.invalid_citations[1].contains("[3]"));
        assert_eq!(slice["valid"], json!([1]));
        assert_eq!(slice["dropped"], json!(2));
    }

    fn sentence(display: &str, citations: Vec<usize>) -> AnswerSentence {
        AnswerSentence {
            display: display.into(),
            text: String::new(),
            citations,
        }
    }

    #[test]
    fn a_citation_stays_only_where_its_passage_states_the_sentence() {
        let mut w = Work::default();
        w.retrieval.hits = vec![hit("a"), hit("b"), hit("c")];
        w.answer.citations = vec![citation(1, "a"), citation(2, "b"), citation(3, "c")];
        let s1 = "The Committee decided to keep its target for the federal funds rate at 5-1/4 percent [1][2].";
        let s2 = "Voting against was Jeffrey Lacker [3].";
        w.answer.sentences = vec![sentence(s1, vec![1, 2]), sentence(s2, vec![3])];
        w.answer.text = format!("{s1} {s2}");
        let passages: HashMap<usize, String> = [
            (1, "The Committee decided today to keep its target for the federal funds rate at 5-1/4 percent."),
            (2, "The Committee decided today to keep its target for the federal funds rate at 4-1/2 percent."),
            (3, "Voting against the action was Jeffrey M. Lacker, who preferred a hike."),
        ]
        .into_iter()
        .map(|(n, p)| (n, p.to_string()))
        .collect();
        let slice = validate(&mut w, &passages);
        assert_eq!(
            w.answer.text,
            "The Committee decided to keep its target for the federal funds rate at 5-1/4 percent [1]. Voting against was Jeffrey Lacker [3]."
        );
        assert_eq!(w.answer.sentences[0].citations, vec![1]);
        assert_eq!(
            w.answer.citations.iter().map(|c| c.n).collect::<Vec<_>>(),
            vec![1, 3],
            "[2] is no longer used"
        );
        assert_eq!(slice["unsupported"].as_array().unwrap().len(), 1);
        assert!(slice["unsupported"][0]
            .as_str()
            .unwrap()
            .starts_with("[2] does not state"));
        assert_eq!(slice["kept_unsupported"], serde_json::Value::Null);
    }

    #[test]
    fn an_answer_keeps_its_only_citation_even_when_unsupported() {
        let mut w = Work::default();
        w.retrieval.hits = vec![hit("a"), hit("b")];
        w.answer.citations = vec![citation(1, "a"), citation(2, "b")];
        let s1 = "The target was raised to 3 percent [1][2].";
        w.answer.sentences = vec![sentence(s1, vec![1, 2])];
        w.answer.text = s1.to_string();
        let passages: HashMap<usize, String> = [
            (1, "The Committee raised the target to 2 percent."),
            (2, "Inflation eased over the year."),
        ]
        .into_iter()
        .map(|(n, p)| (n, p.to_string()))
        .collect();
        let slice = validate(&mut w, &passages);
        assert_eq!(w.answer.text, "The target was raised to 3 percent [1].");
        assert_eq!(
            slice["kept_unsupported"],
            json!(1),
            "the closer passage stays"
        );
        assert_eq!(w.answer.citations.len(), 1);
    }
}
