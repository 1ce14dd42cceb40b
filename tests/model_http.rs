//! The OpenAI-compatible client against a real local HTTP server: answers, streams, failures,
//! timeouts, cancellation and structured-output negotiation.

mod common;

use std::time::{Duration, Instant};

use common::llm_server::{refused_url, Behaviour, LlmServer};
use fathom::model::error::ModelError;
use fathom::model::openai::{
    ApiKey, ChatRequest, ClientConfig, OpenAiClient, ResponseFormat, StructuredMode,
};
use fathom::model::{ChatMessage, ErrorClass};
use serde_json::{json, Value};

const KEY: &str = "sk-test-0123456789";

fn config(base_url: &str) -> ClientConfig {
    ClientConfig {
        base_url: base_url.to_string(),
        model: "test-model".into(),
        api_key: Some(ApiKey::new(KEY)),
        request_timeout: Duration::from_secs(20),
        first_byte_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(10),
        max_reply_bytes: 1024 * 1024,
    }
}

fn client(server: &LlmServer) -> OpenAiClient {
    OpenAiClient::new(config(&server.base_url())).expect("client")
}

fn request(text: &str) -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::system("be brief"), ChatMessage::user(text)],
        temperature: 0.0,
        max_tokens: 64,
        response_format: ResponseFormat::None,
    }
}

async fn stream_collect(
    client: &OpenAiClient,
    req: &ChatRequest,
) -> (
    Result<fathom::model::openai::ChatResponse, ModelError>,
    Vec<String>,
) {
    let mut deltas = Vec::new();
    let mut sink = |d: &str| deltas.push(d.to_string());
    let r = client.complete_stream(req, &mut sink).await;
    (r, deltas)
}

#[tokio::test]
async fn a_json_completion_carries_content_usage_and_the_key_only_in_the_header() {
    let server = LlmServer::start(vec![Behaviour::Json("the rate rose to 5.25%".into())]).await;
    let cfg = config(&server.base_url());
    assert!(!format!("{cfg:?}").contains(KEY), "key leaked into Debug");
    let client = OpenAiClient::new(cfg).unwrap();
    assert!(!format!("{client:?}").contains(KEY));

    let r = client.complete(&request("what rate?")).await.unwrap();
    assert_eq!(r.content, "the rate rose to 5.25%");
    assert_eq!(r.model, "test-model");
    assert_eq!(r.finish_reason.as_deref(), Some("stop"));
    // The server counts words: "be brief" + "what rate?" = 4; the answer has 5.
    assert_eq!(r.usage.prompt_tokens, 4);
    assert_eq!(r.usage.completion_tokens, 5);

    let reqs = server.chat_requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!(
        reqs[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let body = &reqs[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["max_tokens"], 64);
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": "what rate?"})
    );
    assert!(body.get("stream").is_none() && body.get("response_format").is_none());
}

#[tokio::test]
async fn no_key_means_no_authorization_header() {
    let server = LlmServer::start(vec![Behaviour::Json("ok".into())]).await;
    let mut cfg = config(&server.base_url());
    cfg.api_key = None;
    OpenAiClient::new(cfg)
        .unwrap()
        .complete(&request("q"))
        .await
        .unwrap();
    assert_eq!(server.chat_requests()[0].header("authorization"), None);
}

#[tokio::test]
async fn streamed_deltas_arrive_in_order_and_make_the_content() {
    let parts: Vec<String> = [
        "The ",
        "committee ",
        "raised ",
        "rates ",
        "by 25 bp",
        " — ✓",
    ]
    .map(String::from)
    .to_vec();
    let server = LlmServer::start(vec![Behaviour::Stream(parts.clone())]).await;
    let client = client(&server);
    let (r, deltas) = stream_collect(&client, &request("what happened?")).await;
    let r = r.unwrap();
    assert_eq!(deltas, parts);
    assert_eq!(r.content, parts.concat());
    assert_eq!(r.finish_reason.as_deref(), Some("stop"));
    // Usage comes from the final chunk, which the client asked for.
    assert_eq!(r.usage.prompt_tokens, 4);
    assert_eq!(r.usage.completion_tokens, 9);
    let body = &server.chat_requests()[0].body;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn a_json_behaviour_streams_when_asked_to() {
    let server = LlmServer::start(vec![Behaviour::Json("one two three four".into())]).await;
    let (r, deltas) = stream_collect(&client(&server), &request("q")).await;
    assert!(deltas.len() > 1, "{deltas:?}");
    assert_eq!(r.unwrap().content, "one two three four");
}

#[tokio::test]
async fn a_cut_stream_is_stream_cut_with_the_partial_text() {
    let server = LlmServer::start(vec![Behaviour::StreamCut(vec![
        "Rates ".into(),
        "were ".into(),
    ])])
    .await;
    let (r, deltas) = stream_collect(&client(&server), &request("q")).await;
    let err = r.unwrap_err();
    match &err {
        ModelError::StreamCut { partial } => assert_eq!(partial, "Rates were "),
        other => panic!("expected StreamCut, got {other:?}"),
    }
    assert_eq!(err.class(), ErrorClass::Transient);
    assert_eq!(deltas.concat(), "Rates were ");
}

#[tokio::test]
async fn server_errors_are_transient() {
    let server = LlmServer::start(vec![Behaviour::Status(
        500,
        r#"{"error":{"message":"model crashed"}}"#.into(),
    )])
    .await;
    let err = client(&server).complete(&request("q")).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::Http { status: 500, body, .. } if body.contains("model crashed")),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::Transient);
}

#[tokio::test]
async fn rate_limits_are_transient_with_the_wait() {
    let server = LlmServer::start(vec![Behaviour::RateLimited {
        retry_after_secs: 2,
    }])
    .await;
    let err = client(&server).complete(&request("q")).await.unwrap_err();
    assert!(
        matches!(err, ModelError::Http { status: 429, .. }),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::Transient);
    assert_eq!(err.retry_after_ms(), Some(2000));
}

#[tokio::test]
async fn a_bad_key_is_critical() {
    let server = LlmServer::start(vec![Behaviour::Status(
        401,
        r#"{"error":{"message":"invalid api key"}}"#.into(),
    )])
    .await;
    let err = client(&server).complete(&request("q")).await.unwrap_err();
    assert!(
        matches!(err, ModelError::Http { status: 401, .. }),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::Critical);
    assert!(!err.to_string().contains(KEY));
}

#[tokio::test]
async fn a_slow_first_byte_times_out_near_the_limit() {
    for streaming in [false, true] {
        let server = LlmServer::start(vec![Behaviour::SlowFirstByte {
            delay: Duration::from_secs(5),
            content: "late".into(),
        }])
        .await;
        let mut cfg = config(&server.base_url());
        cfg.first_byte_timeout = Duration::from_millis(300);
        let client = OpenAiClient::new(cfg).unwrap();
        let started = Instant::now();
        let r = if streaming {
            stream_collect(&client, &request("q")).await.0
        } else {
            client.complete(&request("q")).await
        };
        let took = started.elapsed();
        let err = r.unwrap_err();
        assert_eq!(
            err,
            ModelError::Timeout { after_ms: 300 },
            "stream={streaming}"
        );
        assert_eq!(err.class(), ErrorClass::Timeout);
        assert!(took >= Duration::from_millis(290), "{took:?}");
        assert!(
            took < Duration::from_millis(2000),
            "stream={streaming}: {took:?}"
        );
    }
}

#[tokio::test]
async fn the_whole_call_is_bounded_by_the_request_timeout() {
    // The head arrives at once but the answer trickles: only the request timeout catches it.
    let deltas: Vec<String> = (0..2000).map(|i| format!("w{i} ")).collect();
    let server = LlmServer::start(vec![Behaviour::Stream(deltas)]).await;
    let mut cfg = config(&server.base_url());
    cfg.request_timeout = Duration::from_millis(400);
    let client = OpenAiClient::new(cfg).unwrap();
    let started = Instant::now();
    let (r, deltas) = stream_collect(&client, &request("q")).await;
    assert_eq!(r.unwrap_err(), ModelError::Timeout { after_ms: 400 });
    assert!(!deltas.is_empty(), "some text should have arrived first");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn a_refused_connection_is_recoverable_and_names_the_url() {
    let url = refused_url();
    let client = OpenAiClient::new(config(&url)).unwrap();
    let err = client.complete(&request("q")).await.unwrap_err();
    assert!(matches!(err, ModelError::Connect(_)), "{err:?}");
    assert_eq!(err.class(), ErrorClass::Recoverable);
    let msg = err.to_string();
    assert!(msg.contains(&url), "{msg}");
    assert!(msg.contains("connection refused"), "{msg}");
    assert!(msg.contains("llm.base_url"), "{msg}");
}

#[tokio::test]
async fn dropping_a_call_closes_the_connection() {
    let server = LlmServer::start(vec![Behaviour::SlowFirstByte {
        delay: Duration::from_secs(8),
        content: "never seen".into(),
    }])
    .await;
    let client = client(&server);
    let req = request("q");
    let call = client.complete(&req);
    // Give up after the request has surely reached the server.
    let outcome = tokio::time::timeout(Duration::from_millis(500), call).await;
    assert!(outcome.is_err(), "the call should still be pending");
    assert_eq!(server.chat_requests().len(), 1);
    let deadline = Instant::now() + Duration::from_secs(4);
    while server.disconnects() == 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Well before the server's 8 s delay: the server saw the client leave, not a failed write.
    assert_eq!(server.disconnects(), 1);
}

#[tokio::test]
async fn a_finished_call_is_not_a_disconnect() {
    let server = LlmServer::start(vec![
        Behaviour::Json("a".into()),
        Behaviour::Stream(vec!["b".into(), "c".into()]),
    ])
    .await;
    let client = client(&server);
    client.complete(&request("q")).await.unwrap();
    stream_collect(&client, &request("q")).await.0.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(server.disconnects(), 0);
}

fn structured_messages(mode: StructuredMode) -> Vec<ChatMessage> {
    let system = match mode {
        StructuredMode::JsonSchema => "Answer in JSON.".to_string(),
        _ => format!(
            "Answer with one JSON object matching this schema: {}",
            schema()
        ),
    };
    vec![ChatMessage::system(system), ChatMessage::user("plan it")]
}

fn schema() -> Value {
    json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
}

fn format_type(body: &Value) -> Option<&str> {
    body.get("response_format")
        .map(|rf| rf["type"].as_str().unwrap_or("?"))
}

#[tokio::test]
async fn structured_output_steps_down_once_and_remembers() {
    let server = LlmServer::start(vec![Behaviour::Json(r#"{"ok":true}"#.into())]).await;
    server.reject_json_schema(true);
    let client = client(&server);
    assert_eq!(client.structured_mode(), StructuredMode::JsonSchema);

    let (r, mode) = client
        .complete_structured(&structured_messages, "plan", &schema(), 0.0, 64, None)
        .await
        .unwrap();
    assert_eq!(r.content, r#"{"ok":true}"#);
    assert_eq!(mode, StructuredMode::JsonObject);
    assert_eq!(client.structured_mode(), StructuredMode::JsonObject);

    let reqs = server.chat_requests();
    let types: Vec<_> = reqs.iter().map(|r| format_type(&r.body)).collect();
    assert_eq!(types, [Some("json_schema"), Some("json_object")]);
    assert_eq!(
        reqs[0].body["response_format"]["json_schema"],
        json!({"name": "plan", "schema": schema(), "strict": true})
    );
    // The weaker form carries the schema in the instructions instead.
    let system = reqs[1].body["messages"][0]["content"].as_str().unwrap();
    assert!(system.contains("\"required\""), "{system}");

    // A clone shares the session's memory: straight to json_object, one request.
    let (_, mode) = client
        .clone()
        .complete_structured(&structured_messages, "plan", &schema(), 0.0, 64, None)
        .await
        .unwrap();
    assert_eq!(mode, StructuredMode::JsonObject);
    let types: Vec<_> = server
        .chat_requests()
        .iter()
        .map(|r| format_type(&r.body).map(str::to_string))
        .collect();
    assert_eq!(types.len(), 3);
    assert_eq!(types[2].as_deref(), Some("json_object"));
}

#[tokio::test]
async fn a_server_rejecting_every_format_ends_at_instructions_only() {
    let server = LlmServer::start(vec![Behaviour::Json(r#"{"ok":false}"#.into())]).await;
    server.reject_any_response_format(true);
    let client = client(&server);
    let mut deltas = String::new();
    let mut sink = |d: &str| deltas.push_str(d);
    let (r, mode) = client
        .complete_structured(
            &structured_messages,
            "plan",
            &schema(),
            0.0,
            64,
            Some(&mut sink),
        )
        .await
        .unwrap();
    assert_eq!(mode, StructuredMode::InstructionsOnly);
    assert_eq!(client.structured_mode(), StructuredMode::InstructionsOnly);
    assert_eq!(r.content, r#"{"ok":false}"#);
    assert_eq!(
        deltas, r#"{"ok":false}"#,
        "the stream sink saw the answer once"
    );
    let reqs = server.chat_requests();
    let types: Vec<_> = reqs.iter().map(|r| format_type(&r.body)).collect();
    assert_eq!(types, [Some("json_schema"), Some("json_object"), None]);
    assert!(reqs[2].body.get("response_format").is_none());
}

#[tokio::test]
async fn a_grammar_failure_500_steps_down_but_other_errors_do_not() {
    // llama.cpp reports schemas it cannot compile as a 500 naming the grammar.
    let server = LlmServer::start(vec![Behaviour::reply(|body| {
        if format_type(body) == Some("json_schema") {
            Behaviour::Status(500, "failed to parse grammar".into())
        } else {
            Behaviour::Json(r#"{"ok":true}"#.into())
        }
    })])
    .await;
    let client = client(&server);
    let (_, mode) = client
        .complete_structured(&structured_messages, "plan", &schema(), 0.0, 64, None)
        .await
        .unwrap();
    assert_eq!(mode, StructuredMode::JsonObject);

    // A plain server failure is returned as is and changes nothing.
    let server = LlmServer::start(vec![Behaviour::Status(500, "out of memory".into())]).await;
    let client = self::client(&server);
    let err = client
        .complete_structured(&structured_messages, "plan", &schema(), 0.0, 64, None)
        .await
        .unwrap_err();
    assert!(matches!(err, ModelError::Http { status: 500, .. }));
    assert_eq!(client.structured_mode(), StructuredMode::JsonSchema);
    assert_eq!(server.chat_requests().len(), 1);
}

#[tokio::test]
async fn list_models_reads_the_model_ids() {
    let server = LlmServer::start(vec![]).await;
    let models = client(&server).list_models().await.unwrap();
    assert_eq!(models, ["test-model"]);
    let reqs = server.requests();
    assert_eq!(reqs.last().map(|r| r.path.as_str()), Some("/v1/models"));
    assert!(reqs[0].header("authorization").is_some());
}

#[tokio::test]
async fn a_wrong_path_is_critical() {
    let server = LlmServer::start(vec![]).await;
    let base = server.base_url().replace("/v1", "/v2");
    let err = OpenAiClient::new(config(&base))
        .unwrap()
        .complete(&request("q"))
        .await
        .unwrap_err();
    assert!(
        matches!(err, ModelError::Http { status: 404, .. }),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::Critical);
}

#[test]
fn calls_are_send_so_the_orchestrator_can_spawn_them() {
    fn assert_send<T: Send>(_: &T) {}
    let client = OpenAiClient::new(config("http://127.0.0.1:9/v1")).unwrap();
    let req = request("q");
    assert_send(&client.complete(&req));
    let mut sink = |_: &str| {};
    assert_send(&client.complete_stream(&req, &mut sink));
    assert_send(&client.complete_structured(&structured_messages, "plan", &schema(), 0.0, 1, None));
    assert_send(&client.list_models());
}
