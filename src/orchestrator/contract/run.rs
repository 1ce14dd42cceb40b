//! Runs one model-backed stage under the contract (ARCHITECTURE §3–4), for any stage: breaker
//! admission, the call, validation, re-issue with telemetry (at most twice), retries with
//! backoff, and the report that the stage should fall back. Whether it does fall back is the
//! state machine's decision; this loop only says why the model could not do it.

use super::prompt::{build_messages, passages_directive, PromptInput};
use super::schema::schema;
use super::stream::AnswerFieldStream;
use super::validate::{validate, ValidationContext};
use super::ModelContract;
use crate::model::chat::StructuredCall;
use crate::model::openai::StructuredMode;
use crate::model::ErrorClass;
use crate::orchestrator::chat::ChatBackend;
use crate::orchestrator::stage::{StageCx, StageOutcome};
use crate::orchestrator::state::Work;
use crate::resilience::breaker::{Admission, FailureKind};
use crate::resilience::budget::{allocate, estimate_tokens, TokenAllocation};
use crate::resilience::policy::{decide, PolicyDecision};
use serde_json::json;

/// Re-issues after a reply that breaks the contract (ARCHITECTURE §3).
pub const MAX_REISSUES: u32 = 2;

/// `max_tokens` of every stage that does not stream an answer: its reply is a small object.
pub const SMALL_REPLY_TOKENS: u32 = 384;

/// How a model-backed stage ended.
#[derive(Debug)]
pub enum ModelOutcome {
    /// The reply passed the contract and was applied to the work.
    Done {
        outcome: StageOutcome,
        tokens: u64,
        reissues: u32,
    },
    /// The model could not do the stage; the reason is shown in the topology panel and the
    /// result, with the tokens and re-issues spent on it.
    FellBack {
        reason: String,
        tokens: u64,
        reissues: u32,
    },
    /// A critical error (bad key, unknown model): the query fails with this message.
    Failed(String),
}

/// Runs `contract` with the chat model. The future may be dropped at any await (cancellation,
/// timeout); the work is only changed once a valid reply is in hand.
pub async fn run_model(
    chat: &ChatBackend,
    contract: &dyn ModelContract,
    cx: &StageCx,
    work: &mut Work,
) -> ModelOutcome {
    let budget = contract.budget(chat, cx, work);
    let directive = contract.runtime_directive(cx, work, budget.as_ref());
    let schema = schema(contract.fields());
    let allowed = contract.citable(work);
    let temperature = contract.temperature(chat);
    let completion = budget
        .as_ref()
        .map(|b| b.completion_tokens)
        .unwrap_or(chat.budget.max_completion_tokens);
    // Only an answer is long; the other replies are small objects, and a cap keeps a model
    // that rambles from spending minutes on one.
    let max_tokens = if contract.streams_answer() {
        completion
    } else {
        completion.min(SMALL_REPLY_TOKENS)
    }
    .max(64);
    let streaming = contract.streams_answer();
    let mut telemetry: Option<String> = None;
    let mut reissues = 0u32;
    let mut attempt = 0u32;
    let mut tokens = 0u64;
    loop {
        let (admission, t) = chat.breaker.admit();
        if t.is_some() {
            cx.sink.breaker(chat.breaker.snapshot(), t);
        }
        if let Admission::Rejected { retry_in_ms } = admission {
            return ModelOutcome::FellBack {
                reason: format!(
                    "{} breaker open (next probe in {} s)",
                    chat.breaker.backend(),
                    retry_in_ms.div_ceil(1000)
                ),
                tokens,
                reissues,
            };
        }
        let messages_for = |mode: StructuredMode| {
            build_messages(
                contract,
                &PromptInput {
                    user_prompt: &cx.input.query,
                    chat_context_summary: &cx.input.chat_context,
                    cached_state: &cx.cached_state,
                    runtime_directive: directive.clone(),
                    telemetry_notes: telemetry.as_deref(),
                    schema_in_instructions: mode != StructuredMode::JsonSchema,
                },
            )
        };
        // Every stage streams, so the first-byte timeout bounds the wait for the first token
        // (a server sends no headers until a non-streamed reply is fully generated); only an
        // answer field is shown as it arrives.
        let mut answer_stream = AnswerFieldStream::new();
        let sink = &cx.sink;
        let mut forward = |delta: &str| {
            if streaming {
                let text = answer_stream.push(delta);
                if !text.is_empty() {
                    sink.answer_token(&text);
                }
            }
        };
        let result = chat
            .client
            .complete_structured(StructuredCall {
                messages_for: &messages_for,
                schema_name: contract.schema_name(),
                schema: &schema,
                temperature,
                max_tokens,
                stream: Some(&mut forward),
            })
            .await;
        match result {
            Ok((response, mode)) => {
                tokens = tokens.saturating_add(match response.usage.total() {
                    // Some servers (llama.cpp's) report no usage on streams: estimate it.
                    0 => {
                        let prompt: u64 = messages_for(mode)
                            .iter()
                            .map(|m| u64::from(estimate_tokens(&m.content)))
                            .sum();
                        prompt.saturating_add(u64::from(estimate_tokens(&response.content)))
                    }
                    n => n,
                });
                let seen = chat.seen_response_ids();
                let ctx = ValidationContext {
                    session_id: &cx.input.session_id,
                    seen_response_ids: &seen,
                    allowed_chunk_ids: &allowed,
                };
                let checked = validate(contract, &response.content, &ctx);
                let applied = checked.map_err(|v| v.notes()).and_then(|obj| {
                    let response_id = obj
                        .get("response_id")
                        .and_then(|v| v.as_str())
                        .unwrap_or_default()
                        .to_string();
                    // Applied to a copy: a reply that validates but cannot be applied must
                    // leave the work as it was.
                    let mut next = work.clone();
                    contract
                        .apply(cx, &mut next, obj)
                        .map(|outcome| (outcome, next, response_id))
                        .map_err(|e| format!("the reply could not be used: {e}"))
                });
                match applied {
                    Ok((mut outcome, next, response_id)) => {
                        *work = next;
                        let t = chat.breaker.record_success();
                        cx.sink.breaker(chat.breaker.snapshot(), t);
                        chat.remember_response_id(&response_id);
                        if let Some(obj) = outcome.slice.as_object_mut() {
                            obj.insert("model".into(), json!(chat.model));
                            obj.insert("structured_output".into(), json!(mode.as_str()));
                            obj.insert("reissues".into(), json!(reissues));
                            obj.insert("tokens".into(), json!(tokens));
                            if let Some(b) = &budget {
                                obj.insert("budget".into(), json!(b));
                            }
                        }
                        return ModelOutcome::Done {
                            outcome,
                            tokens,
                            reissues,
                        };
                    }
                    Err(notes) => {
                        tracing::warn!(stage = contract.schema_name(), %notes, "model output broke the contract");
                        if streaming {
                            cx.sink.answer_reset();
                        }
                        if reissues < MAX_REISSUES {
                            reissues += 1;
                            telemetry = Some(notes);
                            continue;
                        }
                        // The server works but its output does not: a recoverable failure.
                        let t = chat.breaker.record_failure(FailureKind::Recoverable);
                        cx.sink.breaker(chat.breaker.snapshot(), t);
                        return ModelOutcome::FellBack {
                            reason: format!(
                                "model output invalid after {MAX_REISSUES} re-issues: {notes}"
                            ),
                            tokens,
                            reissues,
                        };
                    }
                }
            }
            Err(e) => {
                let class = e.class();
                tracing::warn!(stage = contract.schema_name(), error = %e, ?class, attempt, "model call failed");
                if streaming {
                    cx.sink.answer_reset();
                }
                if let Some(kind) = FailureKind::from_class(class) {
                    let t = chat.breaker.record_failure(kind);
                    cx.sink.breaker(chat.breaker.snapshot(), t);
                }
                let jitter: f64 = rand::random();
                match decide(&chat.retry, class, attempt, e.retry_after_ms(), jitter) {
                    PolicyDecision::Retry { after_ms } => {
                        attempt += 1;
                        tokio::time::sleep(std::time::Duration::from_millis(after_ms)).await;
                    }
                    PolicyDecision::Fail => {
                        return ModelOutcome::Failed(format!("the model server failed: {e}"))
                    }
                    PolicyDecision::Fallback | PolicyDecision::Continue => {
                        let reason = if class == ErrorClass::Timeout {
                            format!("model timed out: {e}")
                        } else if attempt > 0 {
                            format!("model failed after {attempt} retries: {e}")
                        } else {
                            format!("model failed: {e}")
                        };
                        return ModelOutcome::FellBack {
                            reason,
                            tokens,
                            reissues,
                        };
                    }
                }
            }
        }
    }
}

/// How many retrieved passages go into a prompt and the call's `max_tokens` (ARCHITECTURE §4),
/// for stages that send passages.
pub fn passage_budget(chat: &ChatBackend, cx: &StageCx, work: &Work) -> TokenAllocation {
    let chunk_tokens: Vec<u32> = work
        .retrieval
        .hits
        .iter()
        .map(|h| {
            cx.retriever
                .passage(&h.chunk_id)
                .map(|p| estimate_tokens(&p.text).saturating_add(24))
                .unwrap_or(24)
        })
        .collect();
    let overhead = estimate_tokens(super::PERSONA).saturating_add(400);
    allocate(
        &chat.budget,
        estimate_tokens(&cx.input.query),
        u32::from(work.retrieval.reformulation_attempts) + 1,
        overhead,
        &chunk_tokens,
    )
}

/// The first `limit` retrieved passages, labelled with their chunk ids, for a prompt; the first
/// is cut to `first_max_tokens` when even it does not fit the budget.
pub fn retrieved_passages(
    cx: &StageCx,
    work: &Work,
    limit: usize,
    first_max_tokens: Option<u32>,
) -> String {
    let mut items: Vec<(String, String, String)> = work
        .retrieval
        .hits
        .iter()
        .take(limit)
        .filter_map(|h| {
            let p = cx.retriever.passage(&h.chunk_id)?;
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
            Some((h.chunk_id.clone(), header, p.text))
        })
        .collect();
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
    passages_directive(&items)
}
