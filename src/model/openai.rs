//! The OpenAI-compatible chat-completions client (Ollama, llama.cpp, vLLM, OpenAI): plain and
//! streamed completions, timeouts, and structured-output negotiation remembered for the session.

use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use reqwest::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE, RETRY_AFTER};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::time::Instant;

use super::error::{parse_retry_after, ModelError};
use super::sse::{SseErrorKind, SseParser};
use super::{ChatMessage, TokenUsage};

/// Largest model list read into memory; real ones are a few kilobytes.
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;
/// Largest error body read: only its start is kept anyway.
const MAX_ERROR_BODY_BYTES: usize = 64 * 1024;
/// The default cap on a reply's text (`llm.max_reply_bytes`): far above any answer fathom asks
/// for (`max_tokens` is at most 32 768), far below what would strain memory.
pub const DEFAULT_MAX_REPLY_BYTES: usize = 1024 * 1024;
/// The default `llm.idle_timeout_secs`.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Same-origin redirects followed before giving up.
const MAX_REDIRECTS: usize = 5;

/// An API key. It prints as `[redacted]` and only ever leaves the process in the
/// `Authorization` header.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    /// Whether the key is blank (an unset environment variable read as "").
    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Where the model server is and how long to wait for it.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// The API root, e.g. `http://127.0.0.1:8080/v1`; `/chat/completions` and `/models` are
    /// appended to it.
    pub base_url: String,
    pub model: String,
    pub api_key: Option<ApiKey>,
    /// The whole call, first byte to last.
    pub request_timeout: Duration,
    /// Until the first byte of the answer (for a non-streamed call the server sends nothing
    /// until it has generated everything, so this bounds generation there too).
    pub first_byte_timeout: Duration,
    /// Until the TCP (and TLS) connection is up.
    pub connect_timeout: Duration,
    /// Once a reply has started: the longest wait for its next event (streamed) or next piece
    /// of body. Keep-alive comments do not reset it.
    pub idle_timeout: Duration,
    /// The most bytes of answer text one reply may carry. The raw stream may be larger (its
    /// JSON framing) up to a fixed multiple, see [`OpenAiClient`]'s limits.
    pub max_reply_bytes: usize,
}

impl ClientConfig {
    /// A config with default limits: 120 s per call, 60 s to the first byte, 5 s to connect,
    /// 30 s between events, 1 MiB of answer text.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> ClientConfig {
        ClientConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            request_timeout: Duration::from_secs(120),
            first_byte_timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(5),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_reply_bytes: DEFAULT_MAX_REPLY_BYTES,
        }
    }
}

/// How many raw bytes a reply may take per byte of answer text it is allowed. Each streamed
/// token comes wrapped in ~150-250 bytes of JSON; with `max_tokens` at most 32 768 a real stream
/// stays far below 64 × 1 MiB, while a server sending empty events forever is stopped.
const RAW_BYTES_PER_TEXT_BYTE: usize = 64;

/// The limits on one reply, derived from [`ClientConfig`].
#[derive(Debug, Clone, Copy)]
struct ReplyLimits {
    /// Answer text.
    text: usize,
    /// One SSE line, or one event's data: the whole reply as one JSON event, escaped (a JSON
    /// escape is at most 6 bytes per byte of text), plus room for the envelope.
    event: usize,
    /// The whole response body, framing included.
    raw: usize,
}

impl ReplyLimits {
    fn new(max_reply_bytes: usize) -> ReplyLimits {
        let text = max_reply_bytes.max(1);
        ReplyLimits {
            text,
            event: text.saturating_mul(6).saturating_add(64 * 1024),
            raw: text.saturating_mul(RAW_BYTES_PER_TEXT_BYTE),
        }
    }
}

/// How the answer must be shaped.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ResponseFormat {
    /// Free text.
    #[default]
    None,
    /// Any JSON object (`{"type":"json_object"}`); servers that can (llama.cpp's) also take
    /// the schema beside it (`{"type":"json_object","schema":{…}}`) and constrain to it.
    JsonObject { schema: Option<Value> },
    /// JSON matching `schema` (`{"type":"json_schema","json_schema":{…,"strict":true}}`).
    JsonSchema { name: String, schema: Value },
}

impl ResponseFormat {
    /// The `response_format` request field, or `None` when it is to be left out.
    pub fn to_wire(&self) -> Option<Value> {
        match self {
            ResponseFormat::None => None,
            ResponseFormat::JsonObject { schema: None } => Some(json!({"type": "json_object"})),
            ResponseFormat::JsonObject {
                schema: Some(schema),
            } => Some(json!({"type": "json_object", "schema": schema})),
            ResponseFormat::JsonSchema { name, schema } => Some(json!({
                "type": "json_schema",
                "json_schema": {"name": name, "schema": schema, "strict": true},
            })),
        }
    }
}

/// One chat-completions call.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    pub messages: Vec<ChatMessage>,
    pub temperature: f64,
    pub max_tokens: u32,
    pub response_format: ResponseFormat,
}

/// A finished answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatResponse {
    pub content: String,
    /// As reported by the server; zeros when it did not say.
    pub usage: TokenUsage,
    /// The model that answered, as the server named it (the configured one if it did not).
    pub model: String,
    /// `stop`, `length`, … when the server said.
    pub finish_reason: Option<String>,
}

/// How structured output is asked of the server, best first. A server that rejects one form is
/// asked with the next, and the client remembers it for the rest of the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum StructuredMode {
    /// `response_format: json_schema` (the server enforces the schema).
    JsonSchema,
    /// `response_format: json_object`; the caller puts the schema in the instructions.
    JsonObject,
    /// No `response_format`; the instructions alone ask for JSON.
    InstructionsOnly,
}

impl StructuredMode {
    fn from_u8(v: u8) -> StructuredMode {
        match v {
            0 => StructuredMode::JsonSchema,
            1 => StructuredMode::JsonObject,
            _ => StructuredMode::InstructionsOnly,
        }
    }

    fn as_u8(self) -> u8 {
        match self {
            StructuredMode::JsonSchema => 0,
            StructuredMode::JsonObject => 1,
            StructuredMode::InstructionsOnly => 2,
        }
    }

    /// The name recorded in `cached_state` and shown by `fathom doctor`.
    pub fn as_str(self) -> &'static str {
        match self {
            StructuredMode::JsonSchema => "json_schema",
            StructuredMode::JsonObject => "json_object",
            StructuredMode::InstructionsOnly => "instructions_only",
        }
    }

    /// The next, weaker form; `None` at the bottom.
    pub fn step_down(self) -> Option<StructuredMode> {
        match self {
            StructuredMode::JsonSchema => Some(StructuredMode::JsonObject),
            StructuredMode::JsonObject => Some(StructuredMode::InstructionsOnly),
            StructuredMode::InstructionsOnly => None,
        }
    }
}

/// A client for one OpenAI-compatible server and model. Cloning is cheap and clones share the
/// connection pool and the negotiated [`StructuredMode`].
#[derive(Clone)]
pub struct OpenAiClient {
    inner: Arc<Inner>,
}

struct Inner {
    http: reqwest::Client,
    /// Without a trailing slash.
    base_url: String,
    model: String,
    /// The ready `Bearer …` header, marked sensitive so it is never printed by the HTTP stack.
    auth: Option<HeaderValue>,
    request_timeout: Duration,
    first_byte_timeout: Duration,
    connect_timeout: Duration,
    idle_timeout: Duration,
    limits: ReplyLimits,
    /// The key itself, so it can be redacted from whatever the server sends back.
    secrets: Vec<String>,
    /// Set when the key would travel in plain text to another machine.
    plaintext_key_warning: Option<String>,
    /// A [`StructuredMode`] as u8; it only ever moves down.
    mode: AtomicU8,
}

impl fmt::Debug for OpenAiClient {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiClient")
            .field("base_url", &display_url(&self.inner.base_url))
            .field("model", &self.inner.model)
            .field("api_key", &self.inner.auth.as_ref().map(|_| "[redacted]"))
            .field("structured_mode", &self.structured_mode())
            .finish()
    }
}

/// What the current call does with answer text as it arrives.
type DeltaSink<'a> = Option<&'a mut (dyn FnMut(&str) + Send)>;

impl OpenAiClient {
    /// Checks the config and builds the HTTP client (rustls, no OpenSSL). Does not contact the
    /// server.
    pub fn new(cfg: ClientConfig) -> Result<OpenAiClient, ModelError> {
        let base_url = cfg.base_url.trim().trim_end_matches('/').to_string();
        match reqwest::Url::parse(&base_url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
            _ => {
                return Err(ModelError::Connect(format!(
                    "{:?}: not an http(s) URL such as http://127.0.0.1:8080/v1",
                    display_url(&base_url)
                )))
            }
        }
        let auth = match &cfg.api_key {
            Some(key) if !key.is_empty() => {
                let mut v = HeaderValue::from_str(&format!("Bearer {}", key.0.trim()))
                    // Never echo the key: say only what is wrong with it.
                    .map_err(|_| {
                        ModelError::Connect(format!(
                            "{}: the API key contains characters not allowed in an HTTP header",
                            display_url(&base_url)
                        ))
                    })?;
                v.set_sensitive(true);
                Some(v)
            }
            _ => None,
        };
        let http = reqwest::Client::builder()
            .tls_backend_rustls()
            .connect_timeout(cfg.connect_timeout)
            .redirect(same_origin_redirects())
            .user_agent(concat!("fathom/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| {
                ModelError::Connect(format!("{}: {}", display_url(&base_url), root_cause(&e)))
            })?;
        let secrets: Vec<String> = cfg
            .api_key
            .iter()
            .map(|k| k.0.trim().to_string())
            .filter(|k| !k.is_empty())
            .collect();
        let plaintext_key_warning = plaintext_key_warning(&base_url, auth.is_some());
        if let Some(w) = &plaintext_key_warning {
            tracing::warn!("{w}");
        }
        Ok(OpenAiClient {
            inner: Arc::new(Inner {
                http,
                base_url,
                model: cfg.model,
                auth,
                request_timeout: cfg.request_timeout,
                first_byte_timeout: cfg.first_byte_timeout,
                connect_timeout: cfg.connect_timeout,
                idle_timeout: cfg.idle_timeout,
                limits: ReplyLimits::new(cfg.max_reply_bytes),
                secrets,
                plaintext_key_warning,
                mode: AtomicU8::new(StructuredMode::JsonSchema.as_u8()),
            }),
        })
    }

    /// The API root this client talks to (no trailing slash), fit to print: a user name,
    /// password or query values in it (where keys are sometimes put) show as `***`.
    pub fn base_url(&self) -> String {
        display_url(&self.inner.base_url)
    }

    /// A warning when the API key would be sent unencrypted (`http://`) to another machine;
    /// `None` for `https://`, for loopback addresses and when there is no key.
    pub fn plaintext_key_warning(&self) -> Option<&str> {
        self.inner.plaintext_key_warning.as_deref()
    }

    /// The configured model name.
    pub fn model(&self) -> &str {
        &self.inner.model
    }

    /// The structured-output form the next [`complete_structured`](Self::complete_structured)
    /// call starts with.
    pub fn structured_mode(&self) -> StructuredMode {
        StructuredMode::from_u8(self.inner.mode.load(Ordering::SeqCst))
    }

    /// One non-streamed completion.
    pub async fn complete(&self, req: &ChatRequest) -> Result<ChatResponse, ModelError> {
        self.chat(req, None).await
    }

    /// One streamed completion: `on_delta` gets each piece of answer text as it arrives, in
    /// order; the returned content is their concatenation.
    pub async fn complete_stream(
        &self,
        req: &ChatRequest,
        on_delta: &mut (dyn FnMut(&str) + Send),
    ) -> Result<ChatResponse, ModelError> {
        self.chat(req, Some(on_delta)).await
    }

    /// A completion that must be one JSON object matching `schema`, asked for in the strongest
    /// form the server accepts. `messages_for(mode)` builds the prompt for a form (for
    /// [`StructuredMode::JsonObject`] and below it must spell out the schema itself). When the
    /// server rejects a form the call steps down and retries at once, and later calls start at
    /// the form that worked. Returns the answer and the form used.
    pub async fn complete_structured(
        &self,
        messages_for: &(dyn Fn(StructuredMode) -> Vec<ChatMessage> + Sync),
        schema_name: &str,
        schema: &Value,
        temperature: f64,
        max_tokens: u32,
        mut stream: DeltaSink<'_>,
    ) -> Result<(ChatResponse, StructuredMode), ModelError> {
        let mut mode = self.structured_mode();
        loop {
            let response_format = match mode {
                StructuredMode::JsonSchema => ResponseFormat::JsonSchema {
                    name: schema_name.to_string(),
                    schema: schema.clone(),
                },
                StructuredMode::JsonObject => ResponseFormat::JsonObject {
                    schema: Some(schema.clone()),
                },
                StructuredMode::InstructionsOnly => ResponseFormat::None,
            };
            let req = ChatRequest {
                messages: messages_for(mode),
                temperature,
                max_tokens,
                response_format,
            };
            // Reborrow the sink for this try; it is needed again if the server says no.
            let sink: DeltaSink<'_> = match &mut stream {
                Some(f) => Some(&mut **f),
                None => None,
            };
            let err = match self.chat(&req, sink).await {
                Ok(resp) => return Ok((resp, mode)),
                Err(e) => e,
            };
            let next = match mode.step_down() {
                Some(next) if rejects_response_format(&err) => next,
                _ => return Err(err),
            };
            // fetch_max: a concurrent call may already have stepped further down; never move
            // back up past what the server has refused.
            let prev = self.inner.mode.fetch_max(next.as_u8(), Ordering::SeqCst);
            mode = StructuredMode::from_u8(prev.max(next.as_u8()));
            tracing::info!(
                from = ?req.response_format.to_wire().map(|v| v["type"].clone()),
                to = ?mode,
                "the model server rejected the structured-output form; stepping down"
            );
        }
    }

    /// The model names the server offers (`GET {base}/models`).
    pub async fn list_models(&self) -> Result<Vec<String>, ModelError> {
        let url = format!("{}/models", self.inner.base_url);
        let call = async {
            let resp = self
                .send(self.inner.http.get(&url), &url, self.first_byte_deadline())
                .await?;
            let body = read_body(resp, MAX_BODY_BYTES, self.inner.idle_timeout)
                .await
                .map_err(|e| match e {
                    BodyError::Idle => ModelError::Stalled {
                        after_ms: millis(self.inner.idle_timeout),
                        partial: String::new(),
                    },
                    e => ModelError::BadResponse(format!("the model list was cut off: {e}")),
                })?;
            parse_models(&body)
        };
        self.within_request_timeout(call)
            .await
            .map_err(|e| e.redacted(&self.inner.secrets))
    }

    fn first_byte_deadline(&self) -> Instant {
        deadline_after(self.inner.first_byte_timeout)
    }

    async fn within_request_timeout<T>(
        &self,
        call: impl std::future::Future<Output = Result<T, ModelError>>,
    ) -> Result<T, ModelError> {
        match tokio::time::timeout(self.inner.request_timeout, call).await {
            Ok(r) => r,
            Err(_) => Err(ModelError::Timeout {
                after_ms: millis(self.inner.request_timeout),
            }),
        }
    }

    async fn chat(
        &self,
        req: &ChatRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ChatResponse, ModelError> {
        let url = format!("{}/chat/completions", self.inner.base_url);
        let streaming = on_delta.is_some();
        let mut body = json!({
            "model": self.inner.model,
            "messages": req.messages,
            "temperature": req.temperature,
            "max_tokens": req.max_tokens,
        });
        if streaming {
            body["stream"] = json!(true);
            body["stream_options"] = json!({"include_usage": true});
        }
        if let Some(rf) = req.response_format.to_wire() {
            body["response_format"] = rf;
        }
        let first_byte = self.first_byte_deadline();
        let call = async {
            let builder = self.inner.http.post(&url).json(&body).header(
                ACCEPT,
                if streaming {
                    "text/event-stream"
                } else {
                    "application/json"
                },
            );
            let resp = self.send(builder, &url, first_byte).await?;
            let is_sse = resp
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.trim_start().starts_with("text/event-stream"));
            match on_delta {
                Some(sink) if is_sse => self.read_stream(resp, sink, first_byte).await,
                Some(sink) => {
                    // The server ignored `stream: true` and answered in one piece: still an
                    // answer, delivered as a single delta.
                    let resp = self.read_completion(resp).await?;
                    if !resp.content.is_empty() {
                        sink(&resp.content);
                    }
                    Ok(resp)
                }
                None => self.read_completion(resp).await,
            }
        };
        self.within_request_timeout(call)
            .await
            .map_err(|e| e.redacted(&self.inner.secrets))
    }

    /// Sends the request and waits for the response head, turning failures and non-2xx
    /// statuses into [`ModelError`]s.
    async fn send(
        &self,
        mut builder: reqwest::RequestBuilder,
        url: &str,
        first_byte: Instant,
    ) -> Result<reqwest::Response, ModelError> {
        if let Some(auth) = &self.inner.auth {
            builder = builder.header(AUTHORIZATION, auth.clone());
        }
        let resp = match tokio::time::timeout_at(first_byte, builder.send()).await {
            Err(_) => {
                return Err(ModelError::Timeout {
                    after_ms: millis(self.inner.first_byte_timeout),
                })
            }
            Ok(Err(e)) => return Err(self.send_error(&e, url)),
            Ok(Ok(resp)) => resp,
        };
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        if status.is_redirection() {
            // Only a redirect to another origin ends up here (same-origin ones are followed).
            let to = resp
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(|l| format!("to {}", display_url(l)))
                .unwrap_or_else(|| "without a Location".into());
            return Err(ModelError::http(status.as_u16(), None, &to));
        }
        let retry_after = resp
            .headers()
            .get(RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| parse_retry_after(v, SystemTime::now()));
        // The body only explains the status; if it cannot be read, the status still stands.
        let body = read_body(resp, MAX_ERROR_BODY_BYTES, self.inner.idle_timeout)
            .await
            .unwrap_or_default();
        Err(ModelError::http(
            status.as_u16(),
            retry_after,
            &String::from_utf8_lossy(&body),
        ))
    }

    fn send_error(&self, e: &reqwest::Error, url: &str) -> ModelError {
        let url = display_url(url);
        if e.is_connect() && e.is_timeout() {
            return ModelError::Connect(format!(
                "{url}: no connection within {} ms",
                millis(self.inner.connect_timeout)
            ));
        }
        if e.is_timeout() {
            return ModelError::Timeout {
                after_ms: millis(self.inner.first_byte_timeout),
            };
        }
        // Refused, reset, DNS failure, closed before answering: all "the server is not there
        // (right now)", which is what the user has to fix.
        ModelError::Connect(format!("{url}: {}", root_cause(e)))
    }

    async fn read_completion(&self, resp: reqwest::Response) -> Result<ChatResponse, ModelError> {
        let limits = self.inner.limits;
        // The whole reply is one JSON document: its text escaped, plus the envelope.
        let body = read_body(resp, limits.event, self.inner.idle_timeout)
            .await
            .map_err(|e| match e {
                BodyError::TooLarge(_) => ModelError::TooLarge { limit: limits.text },
                BodyError::Idle => ModelError::Stalled {
                    after_ms: millis(self.inner.idle_timeout),
                    partial: String::new(),
                },
                BodyError::Http(_) => ModelError::StreamCut {
                    partial: String::new(),
                },
            })?;
        let resp = parse_completion(&body, &self.inner.model)?;
        if resp.content.len() > limits.text {
            return Err(ModelError::TooLarge { limit: limits.text });
        }
        Ok(resp)
    }

    async fn read_stream(
        &self,
        mut resp: reqwest::Response,
        sink: &mut (dyn FnMut(&str) + Send),
        first_byte: Instant,
    ) -> Result<ChatResponse, ModelError> {
        let limits = self.inner.limits;
        let idle = self.inner.idle_timeout;
        let mut parser = SseParser::with_limits(limits.event, limits.event);
        let mut acc = StreamAcc::new(&self.inner.model, limits.text);
        let mut raw_left = limits.raw;
        // Servers send the head at once and the first event after the prompt is processed (with
        // keep-alive comments meanwhile, some of them): the first-byte limit covers that wait.
        // From the first event on, each next event must come within the idle timeout.
        let mut deadline = first_byte;
        let mut started = false;
        loop {
            let next = match tokio::time::timeout_at(deadline, resp.chunk()).await {
                Ok(next) => next,
                Err(_) if started => return Err(acc.stalled(millis(idle))),
                Err(_) => {
                    return Err(ModelError::Timeout {
                        after_ms: millis(self.inner.first_byte_timeout),
                    })
                }
            };
            let chunk = match next {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(_) => return Err(acc.cut()),
            };
            raw_left = match raw_left.checked_sub(chunk.len()) {
                Some(left) => left,
                None => return Err(ModelError::TooLarge { limit: limits.text }),
            };
            let events = parser.push(&chunk).map_err(|e| match e.kind {
                SseErrorKind::TooLong => ModelError::TooLarge { limit: limits.text },
                SseErrorKind::Malformed => bad_stream(&e.message),
            })?;
            if !events.is_empty() {
                started = true;
                deadline = deadline_after(idle);
            }
            for ev in events {
                if acc.event(&ev.data, sink)? {
                    drain(resp).await;
                    return Ok(acc.finish());
                }
            }
        }
        // The connection ended cleanly but maybe without `[DONE]`.
        if let Some(ev) = parser.finish().map_err(|e| bad_stream(&e.message))? {
            if acc.event(&ev.data, sink)? {
                return Ok(acc.finish());
            }
        }
        Err(acc.cut())
    }
}

/// Reads what little follows `[DONE]` (the body's end) so the connection goes back to the
/// pool instead of being closed; gives up quickly on a server that keeps it open.
async fn drain(mut resp: reqwest::Response) {
    let rest = async {
        let mut left = 64 * 1024usize;
        while let Ok(Some(chunk)) = resp.chunk().await {
            left = left.saturating_sub(chunk.len());
            if left == 0 {
                break;
            }
        }
    };
    let _ = tokio::time::timeout(Duration::from_millis(100), rest).await;
}

/// Whether an error says the server does not accept the `response_format` we sent, as opposed
/// to failing for another reason (which stepping down would not fix).
fn rejects_response_format(err: &ModelError) -> bool {
    let ModelError::Http { status, body, .. } = err else {
        return false;
    };
    let body = body.to_lowercase();
    let names_format = ["response_format", "json_schema", "grammar"]
        .iter()
        .any(|w| body.contains(w));
    match status {
        // A prompt over the context window is also a 400; a weaker format would not help.
        400 | 422 => {
            names_format
                || ![
                    "context length",
                    "context_length",
                    "maximum context",
                    "too many tokens",
                ]
                .iter()
                .any(|w| body.contains(w))
        }
        500 => names_format,
        _ => false,
    }
}

/// The answer being assembled from stream events.
struct StreamAcc {
    content: String,
    /// The most bytes `content` may reach.
    max_content: usize,
    usage: TokenUsage,
    model: String,
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireChunk {
    model: Option<String>,
    choices: Option<Vec<WireChunkChoice>>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireChunkChoice {
    delta: Option<WireDelta>,
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireDelta {
    content: Option<String>,
}

/// Token counts as the server sent them: any JSON at all, read by [`count`], so an absurd
/// number (`1e30`, `-5`, `"12"`) costs the count, never the answer.
#[derive(Deserialize, Default)]
#[serde(default)]
struct WireUsage {
    prompt_tokens: Option<Value>,
    completion_tokens: Option<Value>,
}

impl WireUsage {
    fn into_usage(self) -> TokenUsage {
        TokenUsage {
            prompt_tokens: self.prompt_tokens.as_ref().map_or(0, count),
            completion_tokens: self.completion_tokens.as_ref().map_or(0, count),
        }
    }
}

/// A token count from the server as a `u64`: past `u64::MAX` it saturates, below 0 (or not a
/// number) it is 0. Fractions are cut.
fn count(v: &Value) -> u64 {
    match v {
        Value::Number(n) => n
            .as_u64()
            // Negative integers, then floats: `as` saturates at the bounds and maps NaN to 0.
            .or_else(|| n.as_i64().map(|_| 0))
            .or_else(|| n.as_f64().map(|f| f as u64))
            .unwrap_or(0),
        _ => 0,
    }
}

impl StreamAcc {
    fn new(model: &str, max_content: usize) -> StreamAcc {
        StreamAcc {
            content: String::new(),
            max_content,
            usage: TokenUsage::default(),
            model: model.to_string(),
            finish_reason: None,
        }
    }

    /// Takes one event's data; `true` once the stream says it is done.
    fn event(
        &mut self,
        data: &str,
        sink: &mut (dyn FnMut(&str) + Send),
    ) -> Result<bool, ModelError> {
        let data = data.trim();
        if data == "[DONE]" {
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        let chunk: WireChunk = serde_json::from_str(data).map_err(|e| {
            bad_stream(&format!(
                "an event is not a completion chunk ({e}): {}",
                clip(data)
            ))
        })?;
        if let Some(err) = chunk.error {
            return Err(ModelError::BadResponse(format!(
                "the server reported an error mid-answer: {}",
                error_message(&err)
            )));
        }
        if let Some(m) = chunk.model.filter(|m| !m.is_empty()) {
            self.model = m;
        }
        if let Some(u) = chunk.usage {
            self.usage = u.into_usage();
        }
        if let Some(choice) = chunk.choices.and_then(|c| c.into_iter().next()) {
            if let Some(text) = choice.delta.and_then(|d| d.content) {
                if self.content.len().saturating_add(text.len()) > self.max_content {
                    return Err(ModelError::TooLarge {
                        limit: self.max_content,
                    });
                }
                if !text.is_empty() {
                    sink(&text);
                    self.content.push_str(&text);
                }
            }
            if choice.finish_reason.is_some() {
                self.finish_reason = choice.finish_reason;
            }
        }
        Ok(false)
    }

    fn finish(self) -> ChatResponse {
        ChatResponse {
            content: self.content,
            usage: self.usage,
            model: self.model,
            finish_reason: self.finish_reason,
        }
    }

    fn cut(self) -> ModelError {
        ModelError::StreamCut {
            partial: self.content,
        }
    }

    fn stalled(self, after_ms: u64) -> ModelError {
        ModelError::Stalled {
            after_ms,
            partial: self.content,
        }
    }
}

fn bad_stream(why: &str) -> ModelError {
    ModelError::BadResponse(format!("the event stream is malformed: {why}"))
}

#[derive(Deserialize)]
struct WireCompletion {
    #[serde(default)]
    model: Option<String>,
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireChoice {
    #[serde(default)]
    message: Option<WireMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireMessage {
    content: Option<String>,
    refusal: Option<String>,
}

/// Reads a non-streamed chat completion.
fn parse_completion(body: &[u8], configured_model: &str) -> Result<ChatResponse, ModelError> {
    let value: Value = serde_json::from_slice(body).map_err(|_| {
        ModelError::BadResponse(format!(
            "the answer is not JSON: {}",
            clip(&String::from_utf8_lossy(body))
        ))
    })?;
    // Some proxies report failures with a 200 status and an error object.
    if let Some(err) = value.get("error").filter(|e| !e.is_null()) {
        return Err(ModelError::BadResponse(format!(
            "the server reported an error: {}",
            error_message(err)
        )));
    }
    let wire: WireCompletion = serde_json::from_value(value).map_err(|e| {
        ModelError::BadResponse(format!("the answer is not a chat completion: {e}"))
    })?;
    let choice = wire
        .choices
        .into_iter()
        .next()
        .ok_or_else(|| ModelError::BadResponse("the answer has no choices".into()))?;
    let message = choice.message.unwrap_or_default();
    let content = match (message.content, message.refusal) {
        (Some(c), _) => c,
        (None, Some(r)) => {
            return Err(ModelError::BadResponse(format!(
                "the model refused: {}",
                clip(&r)
            )))
        }
        (None, None) => {
            return Err(ModelError::BadResponse(
                "the answer has no message content".into(),
            ))
        }
    };
    Ok(ChatResponse {
        content,
        usage: wire.usage.map(WireUsage::into_usage).unwrap_or_default(),
        model: wire
            .model
            .filter(|m| !m.is_empty())
            .unwrap_or_else(|| configured_model.to_string()),
        finish_reason: choice.finish_reason,
    })
}

fn parse_models(body: &[u8]) -> Result<Vec<String>, ModelError> {
    #[derive(Deserialize)]
    struct List {
        data: Vec<Entry>,
    }
    #[derive(Deserialize)]
    struct Entry {
        id: String,
    }
    let list: List = serde_json::from_slice(body).map_err(|e| {
        ModelError::BadResponse(format!(
            "the model list is not {{\"data\":[{{\"id\":…}}]}}: {e}"
        ))
    })?;
    Ok(list.data.into_iter().map(|e| e.id).collect())
}

/// Reads a body up to `limit` bytes (more is an error: no server should send that much),
/// waiting at most `idle` for each next piece.
async fn read_body(
    mut resp: reqwest::Response,
    limit: usize,
    idle: Duration,
) -> Result<Vec<u8>, BodyError> {
    let mut out = Vec::new();
    loop {
        let next = tokio::time::timeout_at(deadline_after(idle), resp.chunk())
            .await
            .map_err(|_| BodyError::Idle)?;
        let Some(chunk) = next.map_err(BodyError::Http)? else {
            return Ok(out);
        };
        if out.len().saturating_add(chunk.len()) > limit {
            return Err(BodyError::TooLarge(limit));
        }
        out.extend_from_slice(&chunk);
    }
}

#[derive(Debug)]
enum BodyError {
    Http(reqwest::Error),
    TooLarge(usize),
    /// Nothing more came within the idle timeout.
    Idle,
}

impl fmt::Display for BodyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BodyError::Http(e) => write!(f, "{}", root_cause(e)),
            BodyError::TooLarge(n) => write!(f, "the body is larger than {n} bytes"),
            BodyError::Idle => f.write_str("the body stopped coming"),
        }
    }
}

impl std::error::Error for BodyError {}

/// The innermost cause of an error, which is the one that names the real problem
/// ("connection refused" rather than "error sending request"). URLs in it carry no secrets:
/// the key travels only in a header.
fn root_cause(e: &(dyn std::error::Error + 'static)) -> String {
    let mut cur = e;
    while let Some(next) = cur.source() {
        cur = next;
    }
    if let Some(io) = cur.downcast_ref::<std::io::Error>() {
        match io.kind() {
            std::io::ErrorKind::ConnectionRefused => return "connection refused".into(),
            std::io::ErrorKind::ConnectionReset => return "connection reset".into(),
            _ => {}
        }
    }
    cur.to_string()
}

/// The `message` of an OpenAI-style error object, or the object itself.
fn error_message(err: &Value) -> String {
    let msg = err
        .get("message")
        .and_then(Value::as_str)
        .map(str::to_string)
        .or_else(|| err.as_str().map(str::to_string))
        .unwrap_or_else(|| err.to_string());
    clip(&msg)
}

/// The start of a long text, for messages.
fn clip(s: &str) -> String {
    const MAX: usize = 200;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}…")
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// Now + `d`, or about thirty years from now when that would overflow (`Instant + Duration`
/// panics on overflow, and timeouts come from the config).
fn deadline_after(d: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(d)
        .or_else(|| now.checked_add(Duration::from_secs(30 * 365 * 86_400)))
        .unwrap_or(now)
}

/// Redirects are followed only to the same scheme, host and port (a few hops at most), so a
/// server cannot send the prompt, or the key, somewhere else. Anything else is returned as the
/// 3xx it is and reported with its target.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if !same_origin {
            attempt.stop()
        } else if attempt.previous().len() > MAX_REDIRECTS {
            attempt.error(format!("more than {MAX_REDIRECTS} redirects"))
        } else {
            attempt.follow()
        }
    })
}

/// `url` fit to print: user name and password become `***`, so do query values (some hosts
/// take the key as `?key=…`), and a fragment is dropped. Text that is not a URL is kept only
/// up to an `@` (which could end credentials).
pub fn display_url(url: &str) -> String {
    let Ok(mut u) = reqwest::Url::parse(url) else {
        return match url.rsplit_once('@') {
            Some((_, host)) => format!("***@{host}"),
            None => url.to_string(),
        };
    };
    if !u.username().is_empty() {
        let _ = u.set_username("***");
    }
    if u.password().is_some() {
        let _ = u.set_password(Some("***"));
    }
    if u.query().is_some() {
        let pairs: Vec<String> = u
            .query_pairs()
            .map(|(k, v)| {
                if v.is_empty() {
                    k.into_owned()
                } else {
                    format!("{k}=***")
                }
            })
            .collect();
        u.set_query(Some(&pairs.join("&")));
    }
    u.set_fragment(None);
    u.to_string()
}

/// The warning for an API key that would cross the network unencrypted: `http://` to a host
/// that is not this machine. `None` when there is no key, for `https://` and for loopback.
pub fn plaintext_key_warning(base_url: &str, has_key: bool) -> Option<String> {
    if !has_key {
        return None;
    }
    let u = reqwest::Url::parse(base_url.trim()).ok()?;
    if u.scheme() != "http" {
        return None;
    }
    let host = u.host_str()?;
    let loopback = match host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .parse::<std::net::IpAddr>()
    {
        Ok(ip) => ip.is_loopback(),
        Err(_) => {
            let d = host.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".localhost")
        }
    };
    (!loopback).then(|| {
        format!(
            "the API key is sent unencrypted: llm.base_url {} is plain http:// to another \
             machine, so anyone on the network path can read the key and the prompts; use \
             https:// (or a server on this machine)",
            display_url(base_url)
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_keys_never_print() {
        let key = ApiKey::new("sk-secret");
        assert_eq!(format!("{key:?}"), "[redacted]");
        assert_eq!(format!("{key}"), "[redacted]");
        let mut cfg = ClientConfig::new("http://127.0.0.1:1/v1", "m");
        cfg.api_key = Some(key);
        assert!(!format!("{cfg:?}").contains("sk-secret"));
        let client = OpenAiClient::new(cfg).unwrap();
        assert!(!format!("{client:?}").contains("sk-secret"));
    }

    #[test]
    fn bad_base_urls_are_refused_up_front() {
        for bad in ["localhost:8080", "ftp://x/v1", "", "http://"] {
            let err = OpenAiClient::new(ClientConfig::new(bad, "m")).unwrap_err();
            assert!(matches!(err, ModelError::Connect(_)), "{bad}: {err}");
        }
        let c = OpenAiClient::new(ClientConfig::new("http://127.0.0.1:8080/v1/", "m")).unwrap();
        assert_eq!(c.base_url(), "http://127.0.0.1:8080/v1");
    }

    #[test]
    fn response_formats_serialize_the_openai_way() {
        assert_eq!(ResponseFormat::None.to_wire(), None);
        assert_eq!(
            ResponseFormat::JsonObject { schema: None }.to_wire(),
            Some(json!({"type": "json_object"}))
        );
        // llama.cpp's server constrains to a schema given beside json_object.
        assert_eq!(
            ResponseFormat::JsonObject {
                schema: Some(json!({"type": "object"}))
            }
            .to_wire(),
            Some(json!({"type": "json_object", "schema": {"type": "object"}}))
        );
        let rf = ResponseFormat::JsonSchema {
            name: "plan".into(),
            schema: json!({"type": "object"}),
        };
        assert_eq!(
            rf.to_wire(),
            Some(json!({"type": "json_schema", "json_schema": {
                "name": "plan", "schema": {"type": "object"}, "strict": true}}))
        );
    }

    #[test]
    fn completions_parse_leniently_but_not_blindly() {
        let ok = br#"{"model":"m1","choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#;
        let r = parse_completion(ok, "cfg").unwrap();
        assert_eq!(r.content, "hi");
        assert_eq!(r.model, "m1");
        assert_eq!(r.usage.total(), 4);
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        // No usage, no model: zeros and the configured name.
        let r = parse_completion(br#"{"choices":[{"message":{"content":""}}]}"#, "cfg").unwrap();
        assert_eq!((r.usage.total(), r.model.as_str()), (0, "cfg"));
        for bad in [
            &b"<html>"[..],
            br#"{"choices":[]}"#,
            br#"{"choices":[{"message":{"content":null}}]}"#,
            br#"{"choices":[{"message":{"refusal":"no"}}]}"#,
            br#"{"error":{"message":"overloaded"}}"#,
            br#"{"choices":"x"}"#,
        ] {
            let e = parse_completion(bad, "cfg").unwrap_err();
            assert!(matches!(e, ModelError::BadResponse(_)), "{e}");
        }
    }

    #[test]
    fn stream_events_accumulate() {
        let mut acc = StreamAcc::new("cfg", 1000);
        let mut seen = Vec::new();
        let mut sink = |d: &str| seen.push(d.to_string());
        for ev in [
            r#"{"model":"m2","choices":[{"delta":{"role":"assistant"}}]}"#,
            r#"{"choices":[{"delta":{"content":"He"}}]}"#,
            r#"{"choices":[{"delta":{"content":"llo"},"finish_reason":null}]}"#,
            r#"{"choices":[{"delta":{},"finish_reason":"stop"}]}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#,
        ] {
            assert!(!acc.event(ev, &mut sink).unwrap());
        }
        assert!(acc.event("[DONE]", &mut sink).unwrap());
        let r = acc.finish();
        assert_eq!(seen, ["He", "llo"]);
        assert_eq!(r.content, "Hello");
        assert_eq!(r.model, "m2");
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
        assert_eq!(r.usage.prompt_tokens, 5);

        let mut acc = StreamAcc::new("cfg", 1000);
        assert!(acc.event("not json", &mut |_| {}).is_err());
        assert!(acc
            .event(r#"{"error":{"message":"boom"}}"#, &mut |_| {})
            .is_err());
    }

    #[test]
    fn stream_text_past_the_cap_is_refused_before_the_sink_sees_it() {
        let mut acc = StreamAcc::new("cfg", 10);
        let mut seen = String::new();
        let mut sink = |d: &str| seen.push_str(d);
        let ev = |t: &str| json!({"choices": [{"delta": {"content": t}}]}).to_string();
        assert!(!acc.event(&ev("0123456789"), &mut sink).unwrap());
        assert_eq!(
            acc.event(&ev("x"), &mut sink).unwrap_err(),
            ModelError::TooLarge { limit: 10 }
        );
        assert_eq!(seen, "0123456789");
    }

    #[test]
    fn token_counts_saturate_instead_of_failing() {
        let usage = |v: Value| serde_json::from_value::<WireUsage>(v).unwrap().into_usage();
        let u = usage(json!({"prompt_tokens": u64::MAX, "completion_tokens": u64::MAX}));
        assert_eq!((u.prompt_tokens, u.total()), (u64::MAX, u64::MAX));
        let u = usage(json!({"prompt_tokens": 1e30, "completion_tokens": -5}));
        assert_eq!((u.prompt_tokens, u.completion_tokens), (u64::MAX, 0));
        let u = usage(json!({"prompt_tokens": "12", "completion_tokens": 2.7}));
        assert_eq!((u.prompt_tokens, u.completion_tokens), (0, 2));
        // A huge count does not cost the answer.
        let body = br#"{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":1e300,"completion_tokens":18446744073709551616}}"#;
        let r = parse_completion(body, "m").unwrap();
        assert_eq!(r.content, "ok");
        assert_eq!(r.usage.total(), u64::MAX);
    }

    #[test]
    fn urls_print_without_credentials() {
        assert_eq!(
            display_url("https://user:sk-secret@host.example:8443/v1?api_key=sk-secret&x#frag"),
            "https://***:***@host.example:8443/v1?api_key=***&x"
        );
        assert_eq!(
            display_url("http://sk-secret@127.0.0.1:8080/v1"),
            "http://***@127.0.0.1:8080/v1"
        );
        assert_eq!(
            display_url("http://127.0.0.1:8080/v1"),
            "http://127.0.0.1:8080/v1"
        );
        assert_eq!(display_url("http://sk-secret@"), "***@");
        let mut cfg = ClientConfig::new("https://u:sk-secret@host.example/v1?key=sk-secret", "m");
        cfg.api_key = Some(ApiKey::new("k"));
        let c = OpenAiClient::new(cfg).unwrap();
        assert!(!format!("{c:?}").contains("sk-secret"));
        assert!(!c.base_url().contains("sk-secret"));
        let err = OpenAiClient::new(ClientConfig::new("ftp://u:sk-secret@h/v1", "m")).unwrap_err();
        assert!(!err.to_string().contains("sk-secret"), "{err}");
    }

    #[test]
    fn a_key_over_plain_http_to_another_machine_is_warned_about() {
        for remote in [
            "http://10.1.2.3:8080/v1",
            "http://models.example.com/v1",
            "HTTP://gpu-box:11434/v1",
            "http://[2001:db8::1]/v1",
        ] {
            let w = plaintext_key_warning(remote, true).unwrap_or_default();
            assert!(
                w.contains("unencrypted") && w.contains("https://"),
                "{remote}: {w}"
            );
            assert_eq!(plaintext_key_warning(remote, false), None, "{remote}");
        }
        for local in [
            "http://127.0.0.1:8080/v1",
            "http://127.8.9.10/v1",
            "http://localhost:11434/v1",
            "http://LOCALHOST./v1",
            "http://api.localhost/v1",
            "http://[::1]:8080/v1",
            "https://models.example.com/v1",
        ] {
            assert_eq!(plaintext_key_warning(local, true), None, "{local}");
        }
        let mut cfg = ClientConfig::new("http://10.1.2.3/v1", "m");
        cfg.api_key = Some(ApiKey::new("sk-0123456789"));
        let c = OpenAiClient::new(cfg).unwrap();
        assert!(c.plaintext_key_warning().is_some());
    }

    #[test]
    fn only_format_rejections_step_down() {
        let h = |s, b: &str| ModelError::http(s, None, b);
        assert!(rejects_response_format(&h(400, "")));
        assert!(rejects_response_format(&h(422, "unknown field")));
        assert!(rejects_response_format(&h(
            500,
            "failed to parse grammar from JSON schema"
        )));
        assert!(!rejects_response_format(&h(500, "out of memory")));
        assert!(!rejects_response_format(&h(
            400,
            "This model's maximum context length is 4096 tokens"
        )));
        assert!(!rejects_response_format(&h(401, "response_format")));
        assert!(!rejects_response_format(&ModelError::Timeout {
            after_ms: 1
        }));
    }

    #[test]
    fn modes_only_step_down() {
        assert_eq!(
            StructuredMode::JsonSchema.step_down(),
            Some(StructuredMode::JsonObject)
        );
        assert_eq!(
            StructuredMode::JsonObject.step_down(),
            Some(StructuredMode::InstructionsOnly)
        );
        assert_eq!(StructuredMode::InstructionsOnly.step_down(), None);
        for m in [
            StructuredMode::JsonSchema,
            StructuredMode::JsonObject,
            StructuredMode::InstructionsOnly,
        ] {
            assert_eq!(StructuredMode::from_u8(m.as_u8()), m);
        }
    }
}
