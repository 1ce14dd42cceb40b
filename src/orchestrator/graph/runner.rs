//! How a task runs: its tools are the stages of the single-question path — `search` is
//! retrieve → rerank → evaluate on the task's sub-question within its dates, `extract` is
//! synthesize (the model's half when a chat model is configured, else the extractive one) — on a
//! work of its own. What it finds becomes a claim set for the merge.

use super::coordinator::{TaskError, TaskOutput, TaskRunner};
use super::merge::{claim_id, subject_of, value_of, CitedPassage, Claim, ClaimSet};
use super::task::Task;
use crate::calendar::{civil_from_days, days_from_civil};
use crate::corpus::Date;
use crate::orchestrator::citations::without_markers;
use crate::orchestrator::contract::{run_model, ModelOutcome};
use crate::orchestrator::stage::{CancelFlag, Stage, StageCx, StageError, StageOutcome, StageSink};
use crate::orchestrator::stages::plan::plan;
use crate::orchestrator::state::{QueryInput, Work};
use crate::query::MetadataHints;
use crate::resilience::breaker::{BreakerSnapshot, BreakerTransition};
use futures_util::future::BoxFuture;
use std::collections::BTreeMap;
use std::sync::Arc;

/// How many passages a task pinned to one document ranks before keeping that document's.
const PINNED_DEPTH: u8 = 60;

/// Forwards breaker changes and nothing else: a task's answer is not the user's answer.
struct TaskSink(Arc<dyn StageSink>);

impl StageSink for TaskSink {
    fn answer_token(&self, _: &str) {}
    fn answer_reset(&self) {}
    fn breaker(&self, snapshot: BreakerSnapshot, transition: Option<BreakerTransition>) {
        self.0.breaker(snapshot, transition)
    }
}

/// Runs tasks with the single-question stages.
pub struct StageTaskRunner {
    /// The decomposed query's context: retriever, chat model, the user's years.
    pub cx: StageCx,
    /// retrieve, rerank, evaluate.
    pub search: Vec<Arc<dyn Stage>>,
    /// synthesize.
    pub extract: Arc<dyn Stage>,
}

impl StageTaskRunner {
    fn sub_cx(&self, task: &Task, cancel: &CancelFlag) -> StageCx {
        let parent = &self.cx.input;
        let input = QueryInput {
            session_id: parent.session_id.clone(),
            query_id: format!("{}/{}", parent.query_id, task.id),
            query: task.question.clone(),
            requested_years: parent.requested_years.clone(),
            followup: None,
            chat_context: Vec::new(),
            record_candidates: false,
        };
        StageCx {
            retriever: Arc::clone(&self.cx.retriever),
            chat: self.cx.chat.clone(),
            input: Arc::new(input),
            cached_state: Arc::new(Default::default()),
            sink: Arc::new(TaskSink(Arc::clone(&self.cx.sink))),
            cancel: cancel.clone(),
            dispatch_id: self.cx.dispatch_id.clone(),
            started: self.cx.started,
        }
    }
}

/// A day's distance from a date, in the proleptic calendar.
fn shift(d: Date, days: i64) -> Date {
    let (y, m, day) = civil_from_days(
        days_from_civil(i64::from(d.year), u32::from(d.month), u32::from(d.day)) + days,
    );
    Date {
        year: y as i32,
        month: m as u8,
        day: day as u8,
    }
}

/// The task's dates: its own, or — for a task that waits on others and asks what came next —
/// from the day after its dependencies' latest finding.
fn dates_for(task: &Task, upstream: &BTreeMap<String, TaskOutput>) -> Option<MetadataHints> {
    let latest = upstream
        .values()
        .flat_map(|o| o.claims.claims.values())
        .filter_map(|c| c.date)
        .max();
    match (task.criteria.dates, latest) {
        (Some(d), Some(after)) if d.date_start <= after && after < d.date_end => {
            Some(MetadataHints {
                date_start: shift(after, 1),
                date_end: d.date_end,
            })
        }
        (None, Some(after)) => Some(MetadataHints {
            date_start: shift(after, 1),
            date_end: shift(after, 3653),
        }),
        (d, _) => d,
    }
}

fn stage_err(e: StageError) -> TaskError {
    match e {
        StageError::Cancelled => TaskError::Cancelled,
        other => TaskError::Failed(other.to_string()),
    }
}

/// Runs one stage's offline half on a blocking thread.
async fn offline(
    stage: &Arc<dyn Stage>,
    cx: &StageCx,
    work: Work,
) -> Result<(Work, StageOutcome), TaskError> {
    let stage = Arc::clone(stage);
    let cx = cx.clone();
    let joined = tokio::task::spawn_blocking(move || {
        let mut w = work;
        let r = stage.run(&cx, &mut w);
        (w, r)
    })
    .await
    .map_err(|e| TaskError::Failed(format!("a task's stage panicked: {e}")))?;
    match joined {
        (w, Ok(out)) => Ok((w, out)),
        (_, Err(e)) => Err(stage_err(e)),
    }
}

impl TaskRunner for StageTaskRunner {
    fn run<'a>(
        &'a self,
        task: &'a Task,
        upstream: &'a BTreeMap<String, TaskOutput>,
        cancel: &'a CancelFlag,
    ) -> BoxFuture<'a, Result<TaskOutput, TaskError>> {
        Box::pin(async move {
            let cx = self.sub_cx(task, cancel);
            let mut p = plan(&task.question);
            if let Some(d) = dates_for(task, upstream) {
                p.metadata_hints = Some(d);
                p.suggested_years = d.years();
            }
            // Pinned to one document: rank deep enough that every passage of that day is kept
            // (a day's minutes run to dozens of passages), then keep the document's own below.
            if task.criteria.document.is_some() {
                p.top_k_hint = p.top_k_hint.max(PINNED_DEPTH);
            }
            let mut work = Work {
                plan: Some(p),
                ..Work::default()
            };
            let mut confidence = 0.0;
            for stage in &self.search {
                if cancel.is_cancelled() {
                    return Err(TaskError::Cancelled);
                }
                let (w, out) = offline(stage, &cx, work).await?;
                work = w;
                if let Some(c) = out.confidence {
                    confidence = c;
                }
            }
            // A series the question asks for (or decisions: the statement) goes first.
            if let Some(series) = &task.criteria.series {
                work.retrieval
                    .hits
                    .sort_by_key(|h| !h.document.contains(series.as_str()));
            }
            // A task about one document (a meeting of a sweep) answers from it when it was
            // found: another document of the same day must not speak for that meeting.
            if let Some(doc) = &task.criteria.document {
                if work.retrieval.hits.iter().any(|h| &h.document == doc) {
                    work.retrieval.hits.retain(|h| &h.document == doc);
                }
            }
            if work.retrieval.hits.is_empty() {
                return Ok(TaskOutput {
                    answer: String::new(),
                    confidence: 0.0,
                    claims: ClaimSet::default(),
                    tokens: 0,
                });
            }
            let mut tokens = 0;
            let by_model = match (&cx.chat, self.extract.model()) {
                (Some(chat), Some(contract)) if contract.wanted(chat, &cx, &work) => {
                    let mut next = work.clone();
                    match run_model(chat, contract, &cx, &mut next).await {
                        ModelOutcome::Done { tokens: t, .. } => {
                            tokens = t;
                            work = next;
                            true
                        }
                        ModelOutcome::FellBack { tokens: t, .. } => {
                            tokens = t;
                            false
                        }
                        ModelOutcome::Failed(e) => return Err(TaskError::Failed(e)),
                    }
                }
                _ => false,
            };
            if !by_model {
                work = offline(&self.extract, &cx, work).await?.0;
            }
            Ok(TaskOutput {
                answer: work.answer.text.clone(),
                confidence,
                claims: claims_of(task, &work, confidence),
                tokens,
            })
        })
    }
}

/// A task's answer as claims: one per cited sentence, keyed by subject, date and sentence.
pub fn claims_of(task: &Task, work: &Work, confidence: f64) -> ClaimSet {
    let a = &work.answer;
    let mut set = ClaimSet::default();
    let label = if task.criteria.label.is_empty() {
        task.question.as_str()
    } else {
        task.criteria.label.as_str()
    };
    for (rank, s) in a.sentences.iter().enumerate() {
        let Some(c) = s
            .citations
            .first()
            .and_then(|n| a.citations.iter().find(|c| c.n == *n))
        else {
            continue;
        };
        let sentence = without_markers(&s.display).trim().to_string();
        let subject = subject_of(&sentence, label);
        let claim = Claim {
            id: claim_id(&subject, c.date, &sentence),
            task_id: task.id.clone(),
            value: value_of(&sentence),
            subject,
            date: c.date,
            sentence,
            chunk_id: c.chunk_id.clone(),
            document: c.document.clone(),
            section: c.section.clone(),
            confidence,
            rank,
        };
        set.passages.insert(
            c.chunk_id.clone(),
            CitedPassage {
                chunk_id: c.chunk_id.clone(),
                document: c.document.clone(),
                date: c.date,
                section: c.section.clone(),
                score: c.score,
            },
        );
        set.claims.insert(claim.id.clone(), claim);
    }
    set
}
