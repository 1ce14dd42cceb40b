//! The chat-model backend as the orchestrator sees it: a [`ChatModel`] with its circuit breaker,
//! retry policy and token budget, plus the response ids already seen this session (a reply that
//! reuses one is stale or replayed, and the contract rejects it).

use crate::config::LlmConfig;
use crate::model::chat::ChatModel;
use crate::model::openai::{ApiKey, ClientConfig, OpenAiClient};
use crate::resilience::breaker::{Breaker, BreakerConfig, BreakerSnapshot, Clock, SystemClock};
use crate::resilience::budget::BudgetConfig;
use crate::resilience::policy::RetryPolicy;
use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The backend name shown in the breaker panel and in events.
pub const CHAT_BACKEND: &str = "chat model";

pub struct ChatBackend {
    pub client: Arc<dyn ChatModel>,
    pub breaker: Breaker,
    pub retry: RetryPolicy,
    pub budget: BudgetConfig,
    pub reflection_temperature: f64,
    /// The model screens questions too (`llm.guardrail`).
    pub guardrail: bool,
    pub model: String,
    seen_response_ids: Mutex<HashSet<String>>,
}

#[derive(Debug, thiserror::Error)]
pub enum BackendError {
    #[error(
        "llm.base_url is set but llm.model is not: name the model to use (env FATHOM_LLM_MODEL)"
    )]
    NoModel,
    #[error(transparent)]
    Client(#[from] crate::model::error::ModelError),
}

/// The HTTP client the `[llm]` configuration asks for, or `None` when no server is configured.
pub fn client_from_config(
    cfg: &LlmConfig,
    api_key: Option<String>,
) -> Result<Option<OpenAiClient>, BackendError> {
    let Some(base_url) = cfg.base_url.clone() else {
        return Ok(None);
    };
    let model = cfg.model.clone().ok_or(BackendError::NoModel)?;
    Ok(Some(OpenAiClient::new(ClientConfig {
        base_url,
        model,
        api_key: api_key.map(ApiKey::new),
        request_timeout: Duration::from_secs(cfg.timeout_secs),
        first_byte_timeout: Duration::from_secs(cfg.first_byte_timeout_secs),
        connect_timeout: Duration::from_secs(cfg.first_byte_timeout_secs.min(10)),
        idle_timeout: Duration::from_secs(cfg.idle_timeout_secs),
        max_reply_bytes: cfg.max_reply_bytes,
    })?))
}

impl ChatBackend {
    /// The backend the configuration asks for, or `None` when no server is configured (offline).
    pub fn from_config(
        cfg: &LlmConfig,
        api_key: Option<String>,
    ) -> Result<Option<ChatBackend>, BackendError> {
        let Some(client) = client_from_config(cfg, api_key)? else {
            return Ok(None);
        };
        let model = client.model().to_string();
        Ok(Some(ChatBackend::new(
            Arc::new(client),
            model,
            cfg,
            Arc::new(SystemClock::new()),
        )))
    }

    pub fn new(
        client: Arc<dyn ChatModel>,
        model: String,
        cfg: &LlmConfig,
        clock: Arc<dyn Clock>,
    ) -> ChatBackend {
        let breaker_cfg = BreakerConfig {
            cooldown_ms: cfg.breaker_cooldown_secs.saturating_mul(1000),
            ..BreakerConfig::default()
        };
        ChatBackend {
            client,
            breaker: Breaker::new(CHAT_BACKEND, breaker_cfg, clock),
            retry: RetryPolicy {
                max_retries: cfg.max_retries,
                ..RetryPolicy::default()
            },
            budget: BudgetConfig::new(cfg.token_budget, cfg.max_tokens),
            reflection_temperature: cfg.reflection_temperature,
            guardrail: cfg.guardrail,
            model,
            seen_response_ids: Mutex::new(HashSet::new()),
        }
    }

    pub fn breaker_snapshot(&self) -> BreakerSnapshot {
        self.breaker.snapshot()
    }

    /// The response ids accepted so far this session.
    pub fn seen_response_ids(&self) -> HashSet<String> {
        self.seen_response_ids
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default()
    }

    pub fn remember_response_id(&self, id: &str) {
        if let Ok(mut s) = self.seen_response_ids.lock() {
            s.insert(id.to_string());
        }
    }
}

/// The API key from the environment: `FATHOM_API_KEY`, else `OPENAI_API_KEY`. Never from a
/// file fathom writes, never logged.
pub fn api_key_from_env() -> Option<String> {
    ["FATHOM_API_KEY", "OPENAI_API_KEY"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .find(|v| !v.trim().is_empty())
}
