//! Runs one model-backed stage under the stage contract (ARCHITECTURE §3–4): breaker admission,
//! the call, validation, re-issue with telemetry (at most twice), retries with backoff, and the
//! decision to fall back to the offline stage. Applying a valid output to the query state is
//! here too, so the offline and model paths leave the state in the same shape.

use super::backend::ChatBackend;
use super::breaker::{Admission, BreakerSnapshot, BreakerTransition, FailureKind};
use super::budget::{allocate, estimate_tokens, TokenAllocation};
use super::contract::{self, AnswerFieldStream, ModelStage, PromptInput, StageOutput};
use super::policy::{decide, PolicyDecision};
use super::stages::r2;
use super::stages::synthesize::with_context;
use super::state::QueryState;
use super::text::sentences;
use super::types::Citation;
use crate::index::retrieve::Retriever;
use crate::model::openai::StructuredMode;
use crate::model::ErrorClass;
use serde_json::json;

/// Re-issues after a reply that breaks the contract (ARCHITECTURE §3).
pub const MAX_REISSUES: u32 = 2;

/// `max_tokens` of every stage but synthesis: their replies are small JSON objects.
pub const SMALL_REPLY_TOKENS: u32 = 384;

/// What the Manager needs to hear while a stage runs.
pub trait StageSink: Send {
    /// The breaker after a call was admitted or its outcome recorded; `transition` when its
    /// state changed.
    fn breaker(&mut self, snapshot: BreakerSnapshot, transition: Option<BreakerTransition>);
    /// A piece of the answer as the model writes it.
    fn answer_token(&mut self, text: &str);
    /// The streamed answer was rejected and will be written again.
    fn answer_reset(&mut self);
}

/// How a model-backed stage ended.
#[derive(Debug)]
pub enum ModelOutcome {
    /// The model's output passed the contract and is applied to the state.
    Done {
        slice: serde_json::Value,
        tokens: u64,
        streamed: bool,
    },
    /// Use the offline stage; the reason is shown in the topology panel and the result, with
    /// the tokens and re-issues spent on the model first.
    FellBack {
        reason: String,
        tokens: u64,
        reissues: u32,
    },
    /// A critical error: the query fails with this message.
    Failed(String),
}

/// Runs `stage` with the model. The future may be dropped at any await (cancellation); the
/// state is only changed once a valid output is in hand.
pub async fn run(
    backend: &ChatBackend,
    retriever: &Retriever,
    stage: ModelStage,
    st: &mut QueryState,
    chat_context: &[String],
    sink: &mut dyn StageSink,
) -> ModelOutcome {
    let budget = budget_for(backend, retriever, stage, st);
    let directive = runtime_directive(retriever, stage, st, budget.as_ref());
    let user_prompt = st.query.clone();
    let schema = contract::schema(stage);
    let allowed: Vec<String> = st
        .retrieved_chunks
        .iter()
        .map(|h| h.chunk_id.clone())
        .collect();
    let temperature = match stage {
        ModelStage::Reflect => backend.reflection_temperature,
        _ => 0.2,
    };
    let completion = budget
        .as_ref()
        .map(|b| b.completion_tokens)
        .unwrap_or(backend.budget.max_completion_tokens);
    // Only the answer is long; the other replies are small objects, and a cap keeps a model that
    // rambles from spending minutes on one.
    let max_tokens = match stage {
        ModelStage::Synthesize => completion,
        _ => completion.min(SMALL_REPLY_TOKENS),
    }
    .max(64);
    let mut telemetry: Option<String> = None;
    let mut reissues = 0u32;
    let mut attempt = 0u32;
    let mut tokens = 0u64;
    loop {
        let (admission, t) = backend.breaker.admit();
        if t.is_some() {
            sink.breaker(backend.breaker.snapshot(), t);
        }
        if let Admission::Rejected { retry_in_ms } = admission {
            return ModelOutcome::FellBack {
                reason: format!(
                    "{} breaker open (next probe in {} s)",
                    backend.breaker.backend(),
                    retry_in_ms.div_ceil(1000)
                ),
                tokens,
                reissues,
            };
        }
        let messages_for = |mode: StructuredMode| {
            contract::build_messages(
                stage,
                &PromptInput {
                    user_prompt: &user_prompt,
                    chat_context_summary: chat_context,
                    cached_state: &st.cached_state,
                    runtime_directive: directive.clone(),
                    telemetry_notes: telemetry.as_deref(),
                    schema_in_instructions: mode != StructuredMode::JsonSchema,
                },
            )
        };
        // Every stage streams, so the first-byte timeout bounds the wait for the first token
        // (a server sends no headers until a non-streamed reply is fully generated); only the
        // synthesis answer is shown as it arrives.
        let streaming = stage == ModelStage::Synthesize;
        let mut answer_stream = AnswerFieldStream::new();
        let mut forward = |delta: &str| {
            if streaming {
                let text = answer_stream.push(delta);
                if !text.is_empty() {
                    sink.answer_token(&text);
                }
            }
        };
        let result = backend
            .client
            .complete_structured(
                &messages_for,
                contract::schema_name(stage),
                &schema,
                temperature,
                max_tokens,
                Some(&mut forward),
            )
            .await;
        match result {
            Ok((response, mode)) => {
                tokens += match response.usage.total() {
                    // Some servers (llama.cpp's) report no usage on streams: estimate it.
                    0 => {
                        let prompt: u32 = messages_for(mode)
                            .iter()
                            .map(|m| estimate_tokens(&m.content))
                            .sum();
                        u64::from(prompt + estimate_tokens(&response.content))
                    }
                    n => n,
                };
                let seen = backend.seen_response_ids();
                let ctx = contract::ValidationContext {
                    session_id: &st.session_id,
                    seen_response_ids: &seen,
                    allowed_chunk_ids: &allowed,
                };
                match contract::validate(stage, &response.content, &ctx) {
                    Ok(output) => {
                        let t = backend.breaker.record_success();
                        sink.breaker(backend.breaker.snapshot(), t);
                        backend.remember_response_id(output.response_id());
                        let mut slice = contract::slice(&output);
                        apply(retriever, st, output);
                        if let Some(obj) = slice.as_object_mut() {
                            obj.insert("model".into(), json!(backend.model));
                            obj.insert("structured_output".into(), json!(mode.as_str()));
                            obj.insert("reissues".into(), json!(reissues));
                            obj.insert("tokens".into(), json!(tokens));
                            if let Some(b) = &budget {
                                obj.insert("budget".into(), json!(b));
                            }
                        }
                        return ModelOutcome::Done {
                            slice,
                            tokens,
                            streamed: streaming,
                        };
                    }
                    Err(violation) => {
                        let last_notes = violation.notes();
                        tracing::warn!(stage = %stage.stage_id(), notes = %last_notes, "model output broke the contract");
                        if streaming {
                            sink.answer_reset();
                        }
                        if reissues < MAX_REISSUES {
                            reissues += 1;
                            telemetry = Some(last_notes.clone());
                            continue;
                        }
                        // The server works but its output does not: a recoverable failure.
                        let t = backend.breaker.record_failure(FailureKind::Recoverable);
                        sink.breaker(backend.breaker.snapshot(), t);
                        return ModelOutcome::FellBack {
                            reason: format!(
                                "model output invalid after {MAX_REISSUES} re-issues: {last_notes}"
                            ),
                            tokens,
                            reissues,
                        };
                    }
                }
            }
            Err(e) => {
                let class = e.class();
                tracing::warn!(stage = %stage.stage_id(), error = %e, ?class, attempt, "model call failed");
                if streaming {
                    sink.answer_reset();
                }
                if let Some(kind) = FailureKind::from_class(class) {
                    let t = backend.breaker.record_failure(kind);
                    sink.breaker(backend.breaker.snapshot(), t);
                }
                let jitter: f64 = rand::random();
                match decide(&backend.retry, class, attempt, e.retry_after_ms(), jitter) {
                    PolicyDecision::Retry { after_ms } => {
                        attempt += 1;
                        tokio::time::sleep(std::time::Duration::from_millis(after_ms)).await;
                    }
                    PolicyDecision::Fail => {
                        return ModelOutcome::Failed(format!("the model server failed: {e}"))
                    }
                    PolicyDecision::Fallback | PolicyDecision::Continue => {
                        let why = if class == ErrorClass::Timeout {
                            format!("model timed out: {e}")
                        } else if attempt > 0 {
                            format!("model failed after {attempt} retries: {e}")
                        } else {
                            format!("model failed: {e}")
                        };
                        return ModelOutcome::FellBack {
                            reason: why,
                            tokens,
                            reissues,
                        };
                    }
                }
            }
        }
    }
}

/// How many passages go into the synthesis prompt and the `max_tokens` of the call
/// (ARCHITECTURE §4); other stages use the configured completion limit.
fn budget_for(
    backend: &ChatBackend,
    retriever: &Retriever,
    stage: ModelStage,
    st: &QueryState,
) -> Option<TokenAllocation> {
    if !matches!(stage, ModelStage::Synthesize | ModelStage::Reflect) {
        return None;
    }
    let chunk_tokens: Vec<u32> = st
        .retrieved_chunks
        .iter()
        .map(|h| {
            retriever
                .store()
                .chunk(&h.chunk_id)
                .map(|c| estimate_tokens(&c.text) + 24)
                .unwrap_or(24)
        })
        .collect();
    let overhead = estimate_tokens(contract::PERSONA) + 400;
    Some(allocate(
        &backend.budget,
        estimate_tokens(&st.query),
        u32::from(st.reformulation_attempts) + 1,
        overhead,
        &chunk_tokens,
    ))
}

/// The passages the model may cite, labelled with their chunk ids; the first is cut to
/// `first_max_tokens` when even it does not fit the budget.
fn passages(
    retriever: &Retriever,
    st: &QueryState,
    limit: usize,
    first_max_tokens: Option<u32>,
) -> String {
    let items: Vec<(String, String, String)> = st
        .retrieved_chunks
        .iter()
        .take(limit)
        .filter_map(|h| {
            let chunk = retriever.store().chunk(&h.chunk_id)?;
            let date = h
                .date
                .map(|d| d.to_string())
                .unwrap_or_else(|| "undated".into());
            let header = format!(
                "{}, {}, §{}",
                h.document,
                date,
                h.section.as_deref().unwrap_or("—")
            );
            Some((h.chunk_id.clone(), header, chunk.text.clone()))
        })
        .collect();
    let mut items = items;
    if let (Some(max), Some(first)) = (first_max_tokens, items.first_mut()) {
        // About four characters a token, the estimate the budget used.
        let keep = (max as usize).saturating_mul(4);
        if first.2.len() > keep {
            let cut = (0..=keep)
                .rev()
                .find(|&i| first.2.is_char_boundary(i))
                .unwrap_or(0);
            first.2.truncate(cut);
            first.2.push('…');
        }
    }
    contract::passages_directive(&items)
}

fn runtime_directive(
    retriever: &Retriever,
    stage: ModelStage,
    st: &QueryState,
    budget: Option<&TokenAllocation>,
) -> String {
    let years = retriever.store().years();
    let span = match (years.keys().next(), years.keys().next_back()) {
        (Some(a), Some(b)) => format!("The documents are dated {a} to {b}."),
        _ => "The documents carry no dates.".to_string(),
    };
    let filter = if st.requested_years.is_empty() {
        String::new()
    } else {
        let ys: Vec<String> = st.requested_years.iter().map(|y| y.to_string()).collect();
        format!(" The user restricted the search to {}.", ys.join(", "))
    };
    match stage {
        ModelStage::Guardrail => format!("Check the user prompt. {span}"),
        ModelStage::Plan => format!(
            "Plan retrieval for the user prompt. {span}{filter} Resolve follow-ups against chat_context_summary."
        ),
        ModelStage::Reformulate => {
            let tried = st.queries_tried.join(" | ");
            let heads: Vec<String> = st
                .retrieved_chunks
                .iter()
                .take(3)
                .map(|h| format!("{} ({})", h.document, h.section.as_deref().unwrap_or("—")))
                .collect();
            format!(
                "Retrieval was weak. Queries tried: {tried}. Best (weak) matches: {}. Write one better search query. {span}",
                heads.join("; ")
            )
        }
        ModelStage::Synthesize => {
            let limit = budget.map_or(5, |b| b.chunks_in_prompt.max(1));
            let cut = budget.and_then(|b| b.truncate_first_to);
            format!(
                "Answer the user prompt from these passages only, citing each claim with [n] and listing n → chunk_id in citations.{filter}\n\n{}",
                passages(retriever, st, limit, cut)
            )
        }
        ModelStage::Reflect => {
            let cited: Vec<usize> = st
                .retrieved_chunks
                .iter()
                .enumerate()
                .filter(|(_, h)| st.citations.iter().any(|c| c.chunk_id == h.chunk_id))
                .map(|(i, _)| i)
                .collect();
            let limit = cited.last().map_or(3, |i| i + 1);
            format!(
                "Score how well the answer, as supported by its cited passages, answers the original query ({:?}) and the revised query ({:?}).\n\nAnswer:\n{}\n\n{}",
                st.query,
                st.search_text(),
                st.answer,
                passages(retriever, st, limit, None)
            )
        }
    }
}

/// Applies a valid output to the query state, as the offline stage would have.
fn apply(retriever: &Retriever, st: &mut QueryState, output: StageOutput) {
    match output {
        StageOutput::Guardrail(o) => {
            if !o.allowed {
                st.guardrail = Some(super::types::GuardrailsViolationError {
                    stage: super::topology::StageId::Guardrail,
                    reason: o.reason.unwrap_or_else(|| "blocked by the model".into()),
                    safe_reply: o.safe_reply.unwrap_or_default(),
                });
            }
        }
        StageOutput::Plan(o) => {
            // The model's plan, with the offline planner's reading of the dates and its
            // abbreviation expansions where the model gave none.
            let base = super::stages::plan::plan(&st.query);
            let mut plan = o.to_execution_plan(&st.query);
            if plan.metadata_hints.is_none() {
                plan.metadata_hints = base.metadata_hints;
                plan.suggested_years = base.suggested_years;
            }
            if plan.revised_query.trim().is_empty() {
                plan.revised_query = base.revised_query;
            }
            if plan.reply.is_none() {
                plan.reply = base.reply;
            }
            st.plan = Some(plan);
        }
        StageOutput::Reformulate(o) => {
            st.reformulation_attempts += 1;
            st.reformulated_query = Some(o.reformulated_query);
        }
        StageOutput::Synthesize(o) => {
            let mut citations: Vec<Citation> = Vec::new();
            for c in &o.citations {
                if let Some(h) = st
                    .retrieved_chunks
                    .iter()
                    .find(|h| h.chunk_id == c.chunk_id)
                {
                    citations.push(Citation {
                        n: c.n,
                        chunk_id: h.chunk_id.clone(),
                        document: h.document.clone(),
                        date: h.date,
                        section: h.section.clone(),
                        score: r2(f64::from(h.score)),
                    });
                }
            }
            citations.sort_by_key(|c| c.n);
            st.answer = o.answer.trim().to_string();
            // Sentences with their markers, for an offline reflection should the model's fail.
            st.answer_sentences = sentences(&st.answer)
                .into_iter()
                .map(|s| {
                    let ns = super::stages::validate::markers(s);
                    let ctx = ns
                        .first()
                        .and_then(|n| citations.iter().find(|c| c.n == *n))
                        .and_then(|c| {
                            st.retrieved_chunks
                                .iter()
                                .find(|h| h.chunk_id == c.chunk_id)
                        })
                        .map(|h| with_context(s, h))
                        .unwrap_or_else(|| s.to_string());
                    (ctx, ns)
                })
                .collect();
            st.answer_vectors = match retriever.embedder() {
                Some(e) => {
                    let texts: Vec<&str> = st
                        .answer_sentences
                        .iter()
                        .map(|(s, _)| s.as_str())
                        .collect();
                    e.embed_documents(&texts).unwrap_or_default()
                }
                None => Vec::new(),
            };
            st.citations = citations;
        }
        StageOutput::Reflect(o) => {
            let c = contract::reflect_confidence(&o);
            st.support_original = Some(r2(o.support_original));
            st.support_revised = Some(r2(o.support_revised));
            st.confidence = Some(c);
            st.applicability_note = Some(o.applicability_note);
            st.uncertainty_note = Some(o.uncertainty_note);
        }
    }
}
