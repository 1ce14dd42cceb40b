//! A scripted OpenAI-compatible chat server on 127.0.0.1 for tests: it answers, streams, fails,
//! stalls and cuts connections on cue, and records what it was sent.
//!
//! It runs on its own thread and runtime, so a test may block (say, on a `fathom` child
//! process) while the server keeps answering.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, StatusCode, Uri};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};

/// What the server does with one chat request.
#[derive(Clone)]
pub enum Behaviour {
    /// A normal completion with this content (streamed in a few deltas when the request asks
    /// for a stream).
    Json(String),
    /// These SSE deltas, then a usage chunk and `[DONE]` (one JSON answer if not streaming).
    Stream(Vec<String>),
    /// This status with this body (sent as JSON when it parses as JSON).
    Status(u16, String),
    /// 429 with `Retry-After: <secs>`.
    RateLimited { retry_after_secs: u64 },
    /// Nothing at all for `delay`, then a normal completion.
    SlowFirstByte { delay: Duration, content: String },
    /// These deltas, then the connection is dropped without `[DONE]`.
    StreamCut(Vec<String>),
    /// Decides from the request body.
    Reply(Arc<dyn Fn(&Value) -> Behaviour + Send + Sync>),
    /// A normal completion whose `usage` object is this JSON, as sent (absurd numbers too).
    WithUsage { content: String, usage: Value },
    /// A well-formed stream of `total_bytes` bytes: chunks each carrying `delta_bytes` of text,
    /// generated as they are sent (never held whole), then `[DONE]`.
    HugeStream {
        total_bytes: u64,
        delta_bytes: usize,
    },
    /// `data: xxx…` lines with no blank line ever ending the event, up to `max_bytes`.
    EndlessDataLines { max_bytes: u64 },
    /// Complete events carrying no text (`{"choices":[]}`), up to `max_bytes`.
    EndlessEmptyEvents { max_bytes: u64 },
    /// The role chunk and `first` as the first token, then only `: keep-alive` comments every
    /// `every` for `stall`, then the rest of the answer and `[DONE]`.
    StallAfterFirstToken {
        first: String,
        every: Duration,
        stall: Duration,
    },
    /// A redirect (301, 302, 307, 308) to `location`.
    Redirect { status: u16, location: String },
}

impl Behaviour {
    /// A [`Behaviour::Reply`] from a closure.
    pub fn reply(f: impl Fn(&Value) -> Behaviour + Send + Sync + 'static) -> Behaviour {
        Behaviour::Reply(Arc::new(f))
    }
}

impl fmt::Debug for Behaviour {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Behaviour::Json(c) => f.debug_tuple("Json").field(c).finish(),
            Behaviour::Stream(d) => f.debug_tuple("Stream").field(d).finish(),
            Behaviour::Status(s, b) => f.debug_tuple("Status").field(s).field(b).finish(),
            Behaviour::RateLimited { retry_after_secs } => f
                .debug_struct("RateLimited")
                .field("retry_after_secs", retry_after_secs)
                .finish(),
            Behaviour::SlowFirstByte { delay, content } => f
                .debug_struct("SlowFirstByte")
                .field("delay", delay)
                .field("content", content)
                .finish(),
            Behaviour::StreamCut(d) => f.debug_tuple("StreamCut").field(d).finish(),
            Behaviour::Reply(_) => f.write_str("Reply(..)"),
            Behaviour::WithUsage { content, usage } => f
                .debug_struct("WithUsage")
                .field("content", content)
                .field("usage", usage)
                .finish(),
            Behaviour::HugeStream {
                total_bytes,
                delta_bytes,
            } => f
                .debug_struct("HugeStream")
                .field("total_bytes", total_bytes)
                .field("delta_bytes", delta_bytes)
                .finish(),
            Behaviour::EndlessDataLines { max_bytes } => f
                .debug_struct("EndlessDataLines")
                .field("max_bytes", max_bytes)
                .finish(),
            Behaviour::EndlessEmptyEvents { max_bytes } => f
                .debug_struct("EndlessEmptyEvents")
                .field("max_bytes", max_bytes)
                .finish(),
            Behaviour::StallAfterFirstToken {
                first,
                every,
                stall,
            } => f
                .debug_struct("StallAfterFirstToken")
                .field("first", first)
                .field("every", every)
                .field("stall", stall)
                .finish(),
            Behaviour::Redirect { status, location } => f
                .debug_struct("Redirect")
                .field("status", status)
                .field("location", location)
                .finish(),
        }
    }
}

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct RecordedRequest {
    pub path: String,
    /// Header names in lower case, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The JSON body (`Null` when there was none or it was not JSON).
    pub body: Value,
}

impl RecordedRequest {
    /// The first value of a header (name in any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

struct Shared {
    script: Mutex<VecDeque<Behaviour>>,
    requests: Mutex<Vec<RecordedRequest>>,
    disconnects: Arc<AtomicUsize>,
    reject_json_schema: AtomicBool,
    reject_any_response_format: AtomicBool,
}

impl Shared {
    /// The next scripted behaviour; the last one repeats.
    fn next(&self) -> Behaviour {
        let mut script = self.script.lock().unwrap_or_else(|e| e.into_inner());
        if script.len() > 1 {
            script.pop_front().unwrap_or_else(default_behaviour)
        } else {
            script.front().cloned().unwrap_or_else(default_behaviour)
        }
    }

    fn record(&self, uri: &Uri, headers: &HeaderMap, body: Value) {
        let headers = headers
            .iter()
            .map(|(n, v)| {
                (
                    n.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(RecordedRequest {
                path: uri.path().to_string(),
                headers,
                body,
            });
    }
}

fn default_behaviour() -> Behaviour {
    Behaviour::Json("{}".into())
}

/// A running test server; it stops when dropped.
pub struct LlmServer {
    shared: Arc<Shared>,
    port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl LlmServer {
    /// Starts a server on 127.0.0.1 (a free port) that answers chat requests with `script`,
    /// one behaviour per request, repeating the last.
    pub async fn start(script: Vec<Behaviour>) -> LlmServer {
        let shared = Arc::new(Shared {
            script: Mutex::new(script.into()),
            requests: Mutex::new(Vec::new()),
            disconnects: Arc::new(AtomicUsize::new(0)),
            reject_json_schema: AtomicBool::new(false),
            reject_any_response_format: AtomicBool::new(false),
        });
        let app = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/v1/models", get(models))
            .fallback(not_found)
            .layer(DefaultBodyLimit::disable())
            .with_state(shared.clone());
        let (port_tx, port_rx) = tokio::sync::oneshot::channel();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
        std::thread::Builder::new()
            .name("llm-server".into())
            .spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("test server runtime");
                rt.block_on(async move {
                    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                        .await
                        .expect("bind the test server");
                    let port = listener.local_addr().expect("local addr").port();
                    let _ = port_tx.send(port);
                    // Stop by abandoning the runtime: in-flight handlers are dropped with it
                    // rather than waited for (a stalled one could take minutes).
                    tokio::select! {
                        _ = axum::serve(listener, app) => {}
                        _ = stop_rx => {}
                    }
                });
            })
            .expect("spawn the test server thread");
        let port = port_rx.await.expect("test server did not start");
        LlmServer {
            shared,
            port,
            stop: Some(stop_tx),
        }
    }

    /// The API root, `http://127.0.0.1:<port>/v1`.
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}/v1", self.port)
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The chat-completion requests received so far, in order.
    pub fn chat_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == "/v1/chat/completions")
            .collect()
    }

    /// How many chat requests the client abandoned (closed the connection) before the server
    /// finished answering.
    pub fn disconnects(&self) -> usize {
        self.shared.disconnects.load(Ordering::SeqCst)
    }

    /// When on, any request with `response_format.type == "json_schema"` gets a 400 before the
    /// script is consulted (like servers without schema support).
    pub fn reject_json_schema(&self, on: bool) -> &LlmServer {
        self.shared.reject_json_schema.store(on, Ordering::SeqCst);
        self
    }

    /// When on, any request with a `response_format` at all gets a 400 before the script is
    /// consulted.
    pub fn reject_any_response_format(&self, on: bool) -> &LlmServer {
        self.shared
            .reject_any_response_format
            .store(on, Ordering::SeqCst);
        self
    }

    /// Replaces what is left of the script.
    pub fn set_script(&self, script: Vec<Behaviour>) {
        *self.shared.script.lock().unwrap_or_else(|e| e.into_inner()) = script.into();
    }
}

impl Drop for LlmServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// A base URL on 127.0.0.1 where nothing listens (the port was free a moment ago).
pub fn refused_url() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a probe port");
    let port = listener.local_addr().expect("local addr").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/v1")
}

/// Counts a disconnect when dropped before the answer was fully handed over: the server's
/// handler (or response body) is dropped early only when the client went away.
struct Watch {
    done: bool,
    disconnects: Arc<AtomicUsize>,
}

impl Watch {
    /// The answer has been handed over in full.
    fn finish(&mut self) {
        self.done = true;
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if !self.done {
            self.disconnects.fetch_add(1, Ordering::SeqCst);
        }
    }
}

async fn models(State(st): State<Arc<Shared>>, uri: Uri, headers: HeaderMap) -> Response {
    st.record(&uri, &headers, Value::Null);
    json_response(
        StatusCode::OK,
        json!({"object": "list", "data": [{"id": "test-model", "object": "model"}]}),
    )
}

async fn not_found(State(st): State<Arc<Shared>>, uri: Uri, headers: HeaderMap) -> Response {
    st.record(&uri, &headers, Value::Null);
    json_response(
        StatusCode::NOT_FOUND,
        json!({"error": {"message": format!("no route {}", uri.path())}}),
    )
}

async fn chat(
    State(st): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let req: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    st.record(&uri, &headers, req.clone());
    let mut watch = Watch {
        done: false,
        disconnects: st.disconnects.clone(),
    };
    if req.is_null() {
        watch.finish();
        return error_response(400, "the body is not JSON");
    }
    let format_type = req["response_format"]["type"].as_str();
    if format_type.is_some() && st.reject_any_response_format.load(Ordering::SeqCst) {
        watch.finish();
        return error_response(400, "response_format is not supported");
    }
    if format_type == Some("json_schema") && st.reject_json_schema.load(Ordering::SeqCst) {
        watch.finish();
        return error_response(400, "response_format json_schema is not supported");
    }

    let mut behaviour = st.next();
    // A Reply may build another Reply; a few levels are plenty.
    for _ in 0..8 {
        match behaviour {
            Behaviour::Reply(f) => behaviour = f(&req),
            _ => break,
        }
    }
    let streaming = req["stream"].as_bool() == Some(true);
    let model = req["model"].as_str().unwrap_or("test-model").to_string();
    let prompt_tokens = prompt_tokens(&req);
    let answer = |content: &str, watch: Watch| {
        if streaming {
            let usage = req["stream_options"]["include_usage"].as_bool() == Some(true);
            sse_response(
                sse_frames(&model, &split_deltas(content), prompt_tokens, usage, true),
                false,
                watch,
            )
        } else {
            let mut watch = watch;
            watch.finish();
            completion_response(&model, content, prompt_tokens)
        }
    };
    match behaviour {
        Behaviour::Json(content) => answer(&content, watch),
        Behaviour::Stream(deltas) => {
            if streaming {
                let usage = req["stream_options"]["include_usage"].as_bool() == Some(true);
                sse_response(
                    sse_frames(&model, &deltas, prompt_tokens, usage, true),
                    false,
                    watch,
                )
            } else {
                answer(&deltas.concat(), watch)
            }
        }
        Behaviour::Status(status, body) => {
            watch.finish();
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let ctype = if serde_json::from_str::<Value>(&body).is_ok() {
                "application/json"
            } else {
                "text/plain"
            };
            Response::builder()
                .status(status)
                .header(header::CONTENT_TYPE, ctype)
                .body(Body::from(body))
                .unwrap_or_default()
        }
        Behaviour::RateLimited { retry_after_secs } => {
            watch.finish();
            Response::builder()
                .status(StatusCode::TOO_MANY_REQUESTS)
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::RETRY_AFTER, retry_after_secs.to_string())
                .body(Body::from(
                    json!({"error": {"message": "rate limit reached", "type": "rate_limit"}})
                        .to_string(),
                ))
                .unwrap_or_default()
        }
        Behaviour::SlowFirstByte { delay, content } => {
            // The watch lives across the sleep: if the client gives up, hyper notices the
            // closed connection and drops this handler, which counts the disconnect.
            tokio::time::sleep(delay).await;
            answer(&content, watch)
        }
        Behaviour::StreamCut(deltas) => {
            if streaming {
                sse_response(
                    sse_frames(&model, &deltas, prompt_tokens, false, false),
                    true,
                    watch,
                )
            } else {
                // Half a JSON body, then the cut.
                let head = format!(
                    "{{\"model\":\"{model}\",\"choices\":[{{\"message\":{{\"content\":\"{}",
                    deltas.concat().replace('"', "'")
                );
                sse_response(vec![Bytes::from(head)], true, watch)
            }
        }
        Behaviour::Reply(_) => {
            watch.finish();
            error_response(500, "the test script nests Reply too deep")
        }
        Behaviour::WithUsage { content, usage } => {
            if streaming {
                let mut frames = sse_frames(&model, &split_deltas(&content), 0, false, false);
                let u = json!({"model": model, "choices": [], "usage": usage});
                frames.push(Bytes::from(format!(
                    "data: {}\n\n",
                    chunk_json(&model, json!({}), json!("stop"))
                )));
                frames.push(Bytes::from(format!("data: {u}\n\n")));
                frames.push(Bytes::from_static(b"data: [DONE]\n\n"));
                sse_response(frames, false, watch)
            } else {
                watch.finish();
                let mut body = json!({
                    "id": "chatcmpl-test",
                    "object": "chat.completion",
                    "model": model,
                    "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                 "finish_reason": "stop"}],
                });
                body["usage"] = usage;
                json_response(StatusCode::OK, body)
            }
        }
        Behaviour::HugeStream {
            total_bytes,
            delta_bytes,
        } => {
            let event = Bytes::from(format!(
                "data: {}\n\n",
                chunk_json(
                    &model,
                    json!({"content": "x".repeat(delta_bytes.max(1))}),
                    Value::Null
                )
            ));
            generated_response(
                event,
                total_bytes,
                Some(Bytes::from_static(b"data: [DONE]\n\n")),
                watch,
            )
        }
        Behaviour::EndlessDataLines { max_bytes } => {
            let line = Bytes::from(format!("data: {}\n", "x".repeat(4096)));
            generated_response(line, max_bytes, None, watch)
        }
        Behaviour::EndlessEmptyEvents { max_bytes } => {
            let event = Bytes::from(format!(
                "data: {}\n\n",
                json!({"model": model, "choices": []})
            ));
            generated_response(event, max_bytes, None, watch)
        }
        Behaviour::StallAfterFirstToken {
            first,
            every,
            stall,
        } => {
            let head = sse_frames(&model, &[first], prompt_tokens, false, false);
            let rest = sse_frames(
                &model,
                &["and the rest".to_string()],
                prompt_tokens,
                false,
                true,
            );
            stalled_response(head, every, stall, rest, watch)
        }
        Behaviour::Redirect { status, location } => {
            watch.finish();
            Response::builder()
                .status(StatusCode::from_u16(status).unwrap_or(StatusCode::TEMPORARY_REDIRECT))
                .header(header::LOCATION, location)
                .body(Body::empty())
                .unwrap_or_default()
        }
    }
}

/// One streamed chunk's JSON.
fn chunk_json(model: &str, delta: Value, finish: Value) -> Value {
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    })
}

/// An event stream made of `unit` repeated until `total` bytes have gone out (as fast as the
/// client reads, 64 KiB writes), then `tail` if any. Built as it is sent: the server holds one
/// write at a time, so a gigabyte costs it nothing.
fn generated_response(unit: Bytes, total: u64, tail: Option<Bytes>, watch: Watch) -> Response {
    let per_write = (64 * 1024 / unit.len()).max(1);
    let block = Bytes::from(unit.repeat(per_write));
    let role = Bytes::from(format!(
        "data: {}\n\n",
        chunk_json(
            "test-model",
            json!({"role": "assistant", "content": ""}),
            Value::Null
        )
    ));
    struct Gen {
        first: Option<Bytes>,
        block: Bytes,
        left: u64,
        tail: Option<Bytes>,
        watch: Watch,
    }
    let feed = Gen {
        first: Some(role),
        block,
        left: total,
        tail,
        watch,
    };
    let stream = futures_util::stream::unfold(feed, |mut g| async move {
        if let Some(first) = g.first.take() {
            return Some((Ok::<Bytes, std::io::Error>(first), g));
        }
        if g.left > 0 {
            let n = (g.block.len() as u64).min(g.left) as usize;
            g.left -= n as u64;
            return Some((Ok(g.block.slice(..n)), g));
        }
        if let Some(tail) = g.tail.take() {
            return Some((Ok(tail), g));
        }
        g.watch.finish();
        None
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap_or_default()
}

/// `head`, then a `: keep-alive` comment every `every` until `stall` has passed, then `rest`.
fn stalled_response(
    head: Vec<Bytes>,
    every: Duration,
    stall: Duration,
    rest: Vec<Bytes>,
    watch: Watch,
) -> Response {
    enum Step {
        Frame(Bytes),
        KeepAlive,
    }
    let keepalives = (stall.as_millis() / every.as_millis().max(1)) as usize;
    let steps: VecDeque<Step> = head
        .into_iter()
        .map(Step::Frame)
        .chain((0..keepalives).map(|_| Step::KeepAlive))
        .chain(rest.into_iter().map(Step::Frame))
        .collect();
    struct Feed {
        steps: VecDeque<Step>,
        every: Duration,
        watch: Watch,
    }
    let feed = Feed {
        steps,
        every,
        watch,
    };
    let stream = futures_util::stream::unfold(feed, |mut f| async move {
        match f.steps.pop_front() {
            Some(Step::Frame(b)) => Some((Ok::<Bytes, std::io::Error>(b), f)),
            Some(Step::KeepAlive) => {
                tokio::time::sleep(f.every).await;
                Some((Ok(Bytes::from_static(b": keep-alive\n\n")), f))
            }
            None => {
                f.watch.finish();
                None
            }
        }
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap_or_default()
}

/// Whitespace-separated words in the prompt: a stand-in for tokens that tests can predict.
fn prompt_tokens(req: &Value) -> u64 {
    req["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m["content"].as_str())
                .map(|c| c.split_whitespace().count() as u64)
                .sum()
        })
        .unwrap_or(0)
}

/// Completion "tokens": the words of the answer (at least 1 for a non-empty answer).
pub fn completion_tokens(content: &str) -> u64 {
    let words = content.split_whitespace().count() as u64;
    if words == 0 && !content.is_empty() {
        1
    } else {
        words
    }
}

/// Splits content into up to three deltas on character boundaries.
fn split_deltas(content: &str) -> Vec<String> {
    let chars: Vec<char> = content.chars().collect();
    if chars.len() < 3 {
        return vec![content.to_string()];
    }
    let step = chars.len().div_ceil(3);
    chars
        .chunks(step)
        .map(|c| c.iter().collect::<String>())
        .collect()
}

fn completion_response(model: &str, content: &str, prompt_tokens: u64) -> Response {
    let completion = completion_tokens(content);
    json_response(
        StatusCode::OK,
        json!({
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [{
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion,
                "total_tokens": prompt_tokens + completion,
            },
        }),
    )
}

/// The SSE frames of a streamed answer: a comment (as some servers send), a role chunk, one
/// chunk per delta, and when `complete` the finish chunk, the usage chunk if asked and
/// `[DONE]`.
fn sse_frames(
    model: &str,
    deltas: &[String],
    prompt_tokens: u64,
    usage: bool,
    complete: bool,
) -> Vec<Bytes> {
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": 0,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        })
    };
    let mut events = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for d in deltas {
        events.push(chunk(json!({"content": d}), Value::Null));
    }
    let mut frames = vec![Bytes::from_static(b": keep-alive\n\n")];
    frames.extend(events.iter().map(|e| Bytes::from(format!("data: {e}\n\n"))));
    if complete {
        frames.push(Bytes::from(format!(
            "data: {}\n\n",
            chunk(json!({}), json!("stop"))
        )));
        if usage {
            let completion = completion_tokens(&deltas.concat());
            let u = json!({
                "id": "chatcmpl-test",
                "object": "chat.completion.chunk",
                "model": model,
                "choices": [],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion,
                    "total_tokens": prompt_tokens + completion,
                },
            });
            frames.push(Bytes::from(format!("data: {u}\n\n")));
        }
        frames.push(Bytes::from_static(b"data: [DONE]\n\n"));
    }
    // Each frame goes out in two writes split mid-frame (mid-character, even), so clients
    // meet events that straddle reads.
    frames
        .into_iter()
        .flat_map(|f| {
            let mid = f.len() / 2;
            [f.slice(..mid), f.slice(mid..)]
        })
        .filter(|b| !b.is_empty())
        .collect()
}

/// Streams `frames` a couple of milliseconds apart; with `cut`, then fails the body so the
/// connection is dropped without a proper end.
fn sse_response(frames: Vec<Bytes>, cut: bool, watch: Watch) -> Response {
    struct Feed {
        frames: VecDeque<Bytes>,
        cut: bool,
        watch: Watch,
        first: bool,
    }
    let feed = Feed {
        frames: frames.into(),
        cut,
        watch,
        first: true,
    };
    let stream = futures_util::stream::unfold(feed, |mut feed| async move {
        if !feed.first {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        feed.first = false;
        match feed.frames.pop_front() {
            Some(frame) => {
                // The last frame handed over is the whole answer: a client that stops reading
                // after `[DONE]` has not abandoned anything.
                if feed.frames.is_empty() && !feed.cut {
                    feed.watch.finish();
                }
                Some((Ok(frame), feed))
            }
            None if feed.cut => {
                // Our own doing, not the client's: not a disconnect.
                feed.watch.finish();
                feed.cut = false;
                Some((
                    Err(std::io::Error::other("test server cuts the stream")),
                    feed,
                ))
            }
            None => {
                feed.watch.finish();
                None
            }
        }
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream))
        .unwrap_or_default()
}

fn json_response(status: StatusCode, body: Value) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body.to_string()))
        .unwrap_or_default()
}

fn error_response(status: u16, message: &str) -> Response {
    json_response(
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR),
        json!({"error": {"message": message, "type": "invalid_request_error"}}),
    )
}
