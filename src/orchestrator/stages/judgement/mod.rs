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
//! Slice: `judgement` (the kind), `topic` (for meta questions), `reply`. Fact: `small_talk`.

mod contract;
pub mod rules;

use crate::index::Retriever;
use crate::orchestrator::contract::ModelContract;
use crate::orchestrator::stage::{Stage, StageCx, StageError, StageOutcome};
use crate::orchestrator::state::Work;
use crate::orchestrator::topology::NodeId;
use rules::{judge, JudgementKind, MetaTopic};
use serde::Serialize;
use serde_json::json;

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
        let (kind, topic) = judge(&cx.input.query);
        let reply =
            (kind != JudgementKind::Inquiry).then(|| reply_for(kind, topic, cx.retriever.as_ref()));
        Ok(record(work, Judgement { kind, topic, reply }))
    }

    fn model(&self) -> Option<&dyn ModelContract> {
        Some(&contract::JudgementContract)
    }
}

/// Keeps the judgement for the terminal stage and reports it.
fn record(work: &mut Work, j: Judgement) -> StageOutcome {
    let small_talk = j.reply.is_some();
    let slice = json!({"judgement": j.kind, "topic": j.topic, "reply": j.reply});
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
        );
        assert!(!out.facts.is("small_talk"));
    }
}
