//! Synthesize: picks the sentences of the top chunks that best answer the question — query-term
//! coverage, dense similarity, the chunk's own rank — with a diversity penalty, and composes them
//! with `[n]` markers; the citations are data beside the text. Offline it is extractive; the
//! model half ([`contract`]) writes the answer and streams it.
//!
//! Slice: the mode, sentence counts, the answer and its citations `[{n, chunk_id}]`.

mod contract;

use crate::index::Hit;
use crate::orchestrator::citations::with_markers;
use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::relevance::{coverage, scaled_cosine};
use crate::orchestrator::stage::{r2, Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::{AnswerSentence, Work};
use crate::orchestrator::text::{jaccard, sentences};
use crate::orchestrator::topology::NodeId;
use crate::orchestrator::types::{Citation, IntentType};
use serde_json::json;
use std::collections::HashSet;

pub const ID: NodeId = NodeId::new("synthesize");

pub struct Synthesize;

impl Stage for Synthesize {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let slice = run(cx, work)?;
        // Offline, the answer is whole at once: it is shown a sentence at a time.
        for s in &work.answer.sentences {
            cx.sink.answer_token(&s.display);
        }
        Ok(StageOutcome::new(slice))
    }

    fn model(&self) -> Option<&dyn ModelContract> {
        Some(&contract::SynthesizeContract)
    }
}

/// Sentences more similar than this (word Jaccard) to one already chosen add nothing new.
const MAX_OVERLAP: f64 = 0.6;
/// Other passages cited beside a sentence they repeat.
const MAX_CORROBORATING: usize = 2;

struct Candidate {
    text: String,
    hit: usize,
    score: f64,
    vector: Option<Vec<f32>>,
}

fn run(cx: &StageCx, work: &mut Work) -> Result<serde_json::Value, StageError> {
    let retriever = &cx.retriever;
    let enumerate = work
        .plan
        .as_ref()
        .is_some_and(|p| p.intent == IntentType::Aggregate);
    let (chunks_used, max_sentences) = if enumerate { (12, 8) } else { (5, 3) };
    // A question about a date is answered from passages of that date when there are any.
    let hint = work.date_hint();
    let in_range = |h: &&Hit| hint.is_some_and(|r| h.date.is_some_and(|d| r.contains(d)));
    let dated: Vec<Hit> = work
        .retrieval
        .hits
        .iter()
        .filter(in_range)
        .take(chunks_used)
        .cloned()
        .collect();
    let hits: Vec<Hit> = if dated.is_empty() {
        work.retrieval
            .hits
            .iter()
            .take(chunks_used)
            .cloned()
            .collect()
    } else {
        dated
    };
    let query = work.search_text(&cx.input);
    let q_terms = retriever.analyze(&format!("{} {}", cx.input.query, query));
    let mut cands: Vec<Candidate> = Vec::new();
    for (i, h) in hits.iter().enumerate() {
        let Some(passage) = retriever.passage(&h.chunk_id) else {
            continue;
        };
        for s in sentences(&passage.text) {
            let words = s.split_whitespace().count();
            if (4..=120).contains(&words) && !is_name_list(s) {
                cands.push(Candidate {
                    // Source line breaks are layout, not meaning.
                    text: s.split_whitespace().collect::<Vec<_>>().join(" "),
                    hit: i,
                    score: 0.0,
                    vector: None,
                });
            }
        }
    }
    cx.cancel.check()?;
    let vectors = match &work.retrieval.query_vec {
        Some(_) if !cands.is_empty() => {
            let texts: Vec<&str> = cands.iter().map(|c| c.text.as_str()).collect();
            retriever.embed_texts(&texts)?
        }
        _ => None,
    };
    cx.cancel.check()?;
    for (i, c) in cands.iter_mut().enumerate() {
        let terms: HashSet<String> = retriever
            .analyze(&with_context(&c.text, &hits[c.hit]))
            .into_iter()
            .collect();
        let cov = coverage(&q_terms, &terms);
        let prior = 1.0 / (c.hit as f64 + 1.0);
        c.score = match (&vectors, &work.retrieval.query_vec) {
            (Some(v), Some(q)) => {
                let cos = f64::from(crate::index::dense::dot(&v[i], q));
                c.vector = Some(v[i].clone());
                0.45 * scaled_cosine(cos) + 0.35 * cov + 0.2 * prior
            }
            _ => 0.6 * cov + 0.4 * prior,
        };
    }
    let mut order: Vec<usize> = (0..cands.len()).collect();
    order.sort_by(|&a, &b| cands[b].score.total_cmp(&cands[a].score).then(a.cmp(&b)));
    // Each chosen sentence with the other passages that say the same thing: a near-duplicate from
    // another document is not repeated but cited beside it, so corroborating sources show.
    let mut chosen: Vec<(usize, Vec<usize>)> = Vec::new();
    for i in order {
        if let Some((first, _)) = chosen.first() {
            // After the first sentence, only on-topic ones count, as new sentences or as support.
            if cands[i].score < cands[*first].score * 0.6 {
                break;
            }
        }
        if let Some((j, support)) = chosen
            .iter_mut()
            .find(|(j, _)| jaccard(&cands[i].text, &cands[*j].text) > MAX_OVERLAP)
        {
            let hit = cands[i].hit;
            if hit != cands[*j].hit && !support.contains(&hit) && support.len() < MAX_CORROBORATING
            {
                support.push(hit);
            }
            continue;
        }
        if chosen.len() < max_sentences {
            chosen.push((i, Vec::new()));
        }
    }

    // Number citations by first use.
    let mut cited_hits: Vec<usize> = Vec::new();
    let mut number = |hit: usize| match cited_hits.iter().position(|&h| h == hit) {
        Some(p) => p + 1,
        None => {
            cited_hits.push(hit);
            cited_hits.len()
        }
    };
    let answer = &mut work.answer;
    answer.sentences.clear();
    answer.vectors.clear();
    for (i, support) in &chosen {
        let c = &cands[*i];
        let ns: Vec<usize> = std::iter::once(c.hit)
            .chain(support.iter().copied())
            .map(&mut number)
            .collect();
        answer.sentences.push(AnswerSentence {
            display: with_markers(&c.text, &ns),
            text: with_context(&c.text, &hits[c.hit]),
            citations: ns,
        });
        if let Some(v) = &c.vector {
            answer.vectors.push(v.clone());
        }
    }
    answer.citations = cited_hits
        .iter()
        .enumerate()
        .map(|(k, &h)| {
            let hit = &hits[h];
            Citation {
                n: k + 1,
                chunk_id: hit.chunk_id.clone(),
                document: hit.document.clone(),
                date: hit.date,
                section: hit.section.clone(),
                score: r2(f64::from(hit.score)),
            }
        })
        .collect();
    answer.text = answer
        .sentences
        .iter()
        .map(|s| s.display.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    Ok(json!({
        "mode": "extractive",
        "sentences_considered": cands.len(),
        "sentences_chosen": chosen.len(),
        "corroborating_citations": chosen.iter().map(|(_, s)| s.len()).sum::<usize>(),
        "answer": answer.text,
        "citations": answer.citations.iter().map(|c| json!({"n": c.n, "chunk_id": c.chunk_id})).collect::<Vec<_>>(),
    }))
}

/// A sentence with what its citation tells the reader: the passage's date and section. The
/// answer shows both in its Sources, so they count as support for date words in the question.
pub fn with_context(sentence: &str, hit: &Hit) -> String {
    let date = hit
        .date
        .map(|d| format!("{}. ", d.long_form()))
        .unwrap_or_default();
    let section = hit
        .section
        .as_deref()
        .map(|s| format!("{s}. "))
        .unwrap_or_default();
    format!("{date}{section}{sentence}")
}

/// Lists of names (attendance, votes) answer no question: most of their words are capitalised.
fn is_name_list(sentence: &str) -> bool {
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let capitalised = words
        .iter()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .count();
    words.len() >= 8 && capitalised * 2 > words.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_lists_are_recognised() {
        assert!(is_name_list("Voting for the action were: Alan Greenspan, Chairman; Timothy F. Geithner, Vice Chairman; Susan S. Bies; Roger W. Ferguson, Jr."));
        assert!(!is_name_list("The Committee decided today to lower the target range for the federal funds rate to 0 to 1/4 percent."));
    }
}
