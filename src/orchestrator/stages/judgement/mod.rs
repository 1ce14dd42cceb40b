//! Judgement: is the input a question about the documents, or something said to the assistant
//! (a greeting, thanks, a farewell, feedback, small talk, a question about the assistant)? The
//! latter get a direct reply and end without retrieval; a question wrapped in politeness
//! ("thanks — and what about 2021?") goes on to be answered. The offline rules ([`rules`])
//! always run; the model half ([`contract`], the contract's `judgement_v1`) is asked only when
//! the rules would end the query with a reply, so a model can turn a misjudged question back
//! into an inquiry but never swallows one the rules let through.
//!
//! A meta question gets a useful reply: what fathom does, and for "which documents do you
//! have?" the collection's size and years, read from the retriever.
//!
//! Two offline readings decide: word rules ([`rules`]) and, with the embedding model the
//! examples were calibrated for, meaning ([`meaning`]). The rules reply when every word is a
//! word of conversation; a date or a figure always makes an inquiry; otherwise an input whose
//! meaning is nearer, by a margin, to things said to an assistant than to questions gets a
//! reply ("you saved me hours", "who built you?"), and everything else is answered.
//!
//! Slice: `judgement` (the kind), `topic` (for meta questions), `reply`, `basis` (what decided),
//! and the meaning scores when they were read. Fact: `small_talk`.

mod contract;
pub mod meaning;
pub mod rules;

use crate::index::Retriever;
use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use meaning::{Label, Reading};
use rules::{judge, names_date_or_figure, JudgementKind, MetaTopic};
use serde::Serialize;
use serde_json::json;
use std::sync::{Arc, Mutex};

pub const ID: NodeId = NodeId::new("judgement");

/// The stage's decision, kept for the terminal stage.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Judgement {
    pub kind: JudgementKind,
    pub topic: Option<MetaTopic>,
    /// The direct reply; `None` for an inquiry.
    pub reply: Option<String>,
}

pub struct JudgementStage;

impl Stage for JudgementStage {
    fn id(&self) -> NodeId {
        ID
    }

    fn run(&self, cx: &StageCx, work: &mut Work) -> Result<StageOutcome, StageError> {
        let offline = work
            .offline_judgement
            .get(&cx.input.query, cx.retriever.as_ref());
        let reply = (offline.kind != JudgementKind::Inquiry)
            .then(|| reply_for(offline.kind, offline.topic, cx.retriever.as_ref()));
        Ok(record(
            work,
            Judgement {
                kind: offline.kind,
                topic: offline.topic,
                reply,
            },
            Some(&offline),
        ))
    }

    fn model(&self) -> Option<&dyn ModelContract> {
        Some(&contract::JudgementContract)
    }
}

/// What decided an offline judgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// The word rules: every word is one of conversation, or a topic word with no reading of
    /// meaning to weigh it.
    Words,
    /// A date or a figure: something to look up.
    DateOrFigure,
    /// The reading of meaning against the examples.
    Meaning,
    /// Read as talk, but the collection answers it: its best passage is relevant enough that
    /// it is a question about the documents ("which header does the gateway accept?").
    Collection,
}

/// A passage at least this relevant (the evaluate stage's calibrated relevance, the `high`
/// band) makes an input read as talk a question the collection answers.
pub const ANSWERED_BY_COLLECTION: f64 = 0.55;

/// The calibrated relevance of the collection's best passage for `input` (one embedding of the
/// input serves the search and the relevance).
fn best_relevance(input: &str, retriever: &dyn Retriever) -> Result<f64, crate::index::IndexError> {
    use crate::index::retriever::TopHits;
    let qvec = retriever.embed_query(input)?;
    let mut timings = crate::index::Timings::default();
    let settings = retriever.settings();
    let found = retriever.candidates(
        input,
        qvec.as_deref(),
        &[],
        settings.candidates,
        &mut timings,
    )?;
    let cut = TopHits {
        hint: None,
        k: 3,
        rerank: false,
    };
    let hits = retriever.top_hits(input, qvec.as_deref(), &found, cut, &mut timings)?;
    let rel = crate::orchestrator::stages::evaluate::chunk_relevance(
        retriever,
        input,
        qvec.as_deref(),
        &hits,
    );
    Ok(rel.into_iter().fold(0.0, f64::max))
}

/// The offline judgement of an input.
#[derive(Debug, Clone, PartialEq)]
pub struct Offline {
    pub kind: JudgementKind,
    pub topic: Option<MetaTopic>,
    pub basis: Basis,
    pub reading: Option<Reading>,
    /// The relevance of the collection's best passage, when it was looked at.
    pub collection: Option<f64>,
}

/// The offline judgement of a query's input, worked out once however often it is asked for
/// (the model half's `wanted` and `apply`, the offline half): the clones of a query's [`Work`]
/// share it. Kept with its input, so a different input is judged afresh.
#[derive(Debug, Clone, Default)]
pub struct OfflineMemo(Arc<Mutex<Option<(String, Offline)>>>);

impl OfflineMemo {
    pub fn get(&self, input: &str, retriever: &dyn Retriever) -> Offline {
        if let Ok(memo) = self.0.lock() {
            if let Some((seen, o)) = memo.as_ref() {
                if seen == input {
                    return o.clone();
                }
            }
        }
        let o = judge_offline(input, retriever);
        if let Ok(mut memo) = self.0.lock() {
            *memo = Some((input.to_string(), o.clone()));
        }
        o
    }
}

/// Judges an input offline: the word rules, then (for an input they would send to retrieval
/// that names no date or figure) its meaning. A failure to embed leaves the rules' judgement.
pub fn judge_offline(input: &str, retriever: &dyn Retriever) -> Offline {
    let (kind, topic) = judge(input);
    let offline = |kind, topic, basis, reading| Offline {
        kind,
        topic,
        basis,
        reading,
        collection: None,
    };
    if kind != JudgementKind::Inquiry {
        return offline(kind, topic, Basis::Words, None);
    }
    if names_date_or_figure(input) {
        return offline(kind, None, Basis::DateOrFigure, None);
    }
    // Gibberish has a vector too, and it can sit nearer talk than questions: it goes on to the
    // planner, which tells the user it could not make out a question.
    if crate::orchestrator::stages::plan::incoherence(&input.to_lowercase()).is_some() {
        return offline(kind, topic, Basis::Words, None);
    }
    let reading = match meaning::read(input, retriever) {
        Ok(r) => r,
        Err(e) => {
            tracing::warn!(error = %e, "judgement: could not read the input's meaning");
            None
        }
    };
    match reading {
        Some(r) => match r.nearest_talk {
            Label::Talk(kind, topic) if r.is_talk() => match best_relevance(input, retriever) {
                Ok(rel) if rel >= ANSWERED_BY_COLLECTION => Offline {
                    collection: Some(rel),
                    ..offline(JudgementKind::Inquiry, None, Basis::Collection, Some(r))
                },
                Ok(rel) => Offline {
                    collection: Some(rel),
                    ..offline(kind, topic, Basis::Meaning, Some(r))
                },
                Err(e) => {
                    tracing::warn!(error = %e, "judgement: could not search the collection");
                    offline(kind, topic, Basis::Meaning, Some(r))
                }
            },
            _ => offline(JudgementKind::Inquiry, None, Basis::Meaning, Some(r)),
        },
        None => offline(kind, topic, Basis::Words, None),
    }
}

/// Keeps the judgement for the terminal stage and reports it, with what decided it when the
/// offline judgement did.
fn record(work: &mut Work, j: Judgement, offline: Option<&Offline>) -> StageOutcome {
    let small_talk = j.reply.is_some();
    let mut slice = json!({"judgement": j.kind, "topic": j.topic, "reply": j.reply});
    if let Some(o) = offline {
        slice["basis"] = json!(o.basis);
        if let Some(r) = o.reading {
            let round = |x: f32| (x * 1000.0).round() / 1000.0;
            slice["meaning"] = json!({"talk": round(r.talk), "question": round(r.question),
                                      "margin": meaning::MARGIN});
        }
        if let Some(rel) = o.collection {
            slice["collection_relevance"] = json!((rel * 1000.0).round() / 1000.0);
        }
    }
    work.judgement = Some(j);
    StageOutcome::new(slice).flag("small_talk", small_talk)
}

/// "224 documents dated 2000 to 2024", from what the retriever holds.
pub fn collection_note(retriever: &dyn Retriever) -> String {
    let years = retriever.years();
    let n: usize = years.values().sum();
    let docs = if n == 1 { "document" } else { "documents" };
    match (years.keys().next(), years.keys().next_back()) {
        (Some(a), Some(b)) if a == b => format!("{n} {docs} from {a}"),
        (Some(a), Some(b)) => format!("{n} {docs} dated {a} to {b}"),
        _ => "no dated documents yet".to_string(),
    }
}

const ASK_HINT: &str = "Ask about a decision, its reasons, a vote, a date or a figure, for example \"What did the Committee decide in March 2020?\"; you can narrow a question to certain years with the year filter.";

/// The direct reply for an input that is not a question about the documents.
pub fn reply_for(
    kind: JudgementKind,
    topic: Option<MetaTopic>,
    retriever: &dyn Retriever,
) -> String {
    let collection = collection_note(retriever);
    match kind {
        JudgementKind::Greeting | JudgementKind::SmallTalk | JudgementKind::Inquiry => format!(
            "Hello! Ask me a question about the documents in this collection ({collection}) and I'll answer from them, with citations you can open. {ASK_HINT}"
        ),
        JudgementKind::Thanks => {
            "You're welcome. Ask another question about the documents whenever you like.".to_string()
        }
        JudgementKind::Farewell => "Goodbye! Come back with a question about the documents any time.".to_string(),
        JudgementKind::Feedback => "Thanks for telling me. If an answer missed, name the meeting (its month and year) or the decision you mean, and check the cited passages: each sentence shows what it rests on.".to_string(),
        JudgementKind::Meta => meta_reply(topic.unwrap_or(MetaTopic::Capabilities), &collection),
    }
}

fn meta_reply(topic: MetaTopic, collection: &str) -> String {
    let what = format!("I answer questions from the documents in this collection ({collection}), quoting the passages I use and citing each one [n] so you can open it.");
    match topic {
        MetaTopic::Documents => format!(
            "This collection holds {collection}. {ASK_HINT}"
        ),
        MetaTopic::Web => format!(
            "No: I read only the documents in this collection ({collection}), not the web, so every answer can be checked against a cited passage."
        ),
        MetaTopic::Language => format!(
            "{what} Answers quote the documents, so they are in the documents' language."
        ),
        MetaTopic::Memory => format!(
            "Within a conversation I read a follow-up (\"and in 2021?\") in the light of the questions before it. {what}"
        ),
        MetaTopic::Identity => format!(
            "I'm fathom, an assistant for asking questions of a folder of dated documents. {what}"
        ),
        MetaTopic::Confidence => format!(
            "{what} The confidence says how well the cited passages answer the question: high, medium (with a caveat), low (a partial answer), or too low, when I ask you to narrow the question."
        ),
        MetaTopic::Sources => format!(
            "I search the collection ({collection}) by meaning and by words, rank the passages, prefer the meeting your question names, and quote the sentences that state what you asked; a citation stays on a sentence only when its passage states that sentence's figures, dates and names."
        ),
        MetaTopic::Privacy => "Offline by default: the documents, the index and your questions stay on this machine. Only if `[llm]` in config.toml names a model server are a question and the passages retrieved for it sent to that server.".to_string(),
        MetaTopic::Capabilities => format!("{what} {ASK_HINT}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Date;
    use crate::index::memory::MemoryRetriever;
    use crate::index::{Passage, RetrievalSettings};
    use crate::orchestrator::stage::testing::cx;
    use std::sync::Arc;

    fn retriever() -> Arc<dyn Retriever> {
        let passage = |date: &str, text: &str| {
            let d = Date::parse(date);
            Passage {
                chunk_id: date.into(),
                document: format!("{date}_statement.md"),
                date: d,
                year: d.map(|d| d.year),
                text: text.into(),
                ..Passage::default()
            }
        };
        Arc::new(MemoryRetriever::new(
            vec![
                passage("2008-03-18", "The Committee lowered its target."),
                passage("2010-11-03", "The Committee will purchase securities."),
                passage("2010-12-14", "The Committee maintained its target."),
            ],
            RetrievalSettings {
                candidates: 10,
                rrf_k: 60.0,
                recency_boost: 0.0,
                recent_year_window: 3,
            },
        ))
    }

    #[test]
    fn a_documents_question_is_answered_with_the_collections_size_and_years() {
        let mut w = Work::default();
        let out = JudgementStage
            .run(&cx(retriever(), "Which documents do you have?"), &mut w)
            .unwrap();
        let reply = out.slice["reply"].as_str().unwrap_or_default().to_string();
        assert!(reply.contains("3 documents dated 2008 to 2010"), "{reply}");
        assert_eq!(out.slice["topic"], json!("documents"));
        let out = JudgementStage
            .run(&cx(retriever(), "thanks! and what about 2010?"), &mut w)
            .unwrap();
        assert_eq!(out.slice["judgement"], json!("inquiry"));
        assert!(out.slice["reply"].is_null());
        assert_eq!(out.slice["basis"], json!("date_or_figure"));
    }

    #[test]
    fn the_offline_judgement_is_kept_for_its_input_and_shared_by_clones() {
        let memo = OfflineMemo::default();
        let clone = memo.clone();
        assert_eq!(
            memo.get("thanks a lot", retriever().as_ref()).kind,
            JudgementKind::Thanks
        );
        // The clone (another attempt's copy of the query's Work) holds the same judgement.
        let kept = clone.0.lock().unwrap().clone();
        assert_eq!(
            kept.map(|(i, o)| (i, o.kind)),
            Some(("thanks a lot".to_string(), JudgementKind::Thanks))
        );
        // Another input is judged afresh, not served the kept one.
        let o = clone.get("thanks! and what about 2010?", retriever().as_ref());
        assert_eq!(
            (o.kind, o.basis),
            (JudgementKind::Inquiry, Basis::DateOrFigure)
        );
    }

    #[test]
    fn without_an_embedder_the_word_rules_decide() {
        // The memory retriever has no embedder: no reading of meaning, so a topic word the
        // rules do not know sends "you saved my afternoon" on to retrieval, and the slice says
        // the words decided.
        let o = judge_offline("you saved my afternoon", retriever().as_ref());
        assert_eq!(
            (o.kind, o.basis, o.reading),
            (JudgementKind::Inquiry, Basis::Words, None)
        );
        let o = judge_offline("thanks a lot", retriever().as_ref());
        assert_eq!((o.kind, o.basis), (JudgementKind::Thanks, Basis::Words));
    }

    #[test]
    fn replies_end_the_query_and_inquiries_go_on() {
        let mut w = Work::default();
        let out = record(
            &mut w,
            Judgement {
                kind: JudgementKind::Greeting,
                topic: None,
                reply: Some("Hello!".into()),
            },
            None,
        );
        assert!(out.facts.is("small_talk"));
        assert_eq!(
            w.judgement.as_ref().and_then(|j| j.reply.as_deref()),
            Some("Hello!")
        );
        let out = record(
            &mut w,
            Judgement {
                kind: JudgementKind::Inquiry,
                topic: None,
                reply: None,
            },
            None,
        );
        assert!(!out.facts.is("small_talk"));
    }
}
