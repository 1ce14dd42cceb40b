//! The model client against servers that send too much, too little or something dangerous:
//! absurd token counts, a gigabyte stream, endless `data:` lines, a stall behind keep-alive
//! comments, redirects to another host, keys echoed in error bodies or put in the URL.

mod common;

use std::time::{Duration, Instant};

use common::llm_server::{refused_url, Behaviour, LlmServer};
use fathom::model::error::ModelError;
use fathom::model::openai::{
    ApiKey, ChatRequest, ChatResponse, ClientConfig, OpenAiClient, ResponseFormat,
};
use fathom::model::{ChatMessage, ErrorClass};
use serde_json::json;

const KEY: &str = "sk-test-0123456789";
const MIB: usize = 1024 * 1024;

fn config(base_url: &str) -> ClientConfig {
    ClientConfig {
        base_url: base_url.to_string(),
        model: "test-model".into(),
        api_key: Some(ApiKey::new(KEY)),
        request_timeout: Duration::from_secs(60),
        first_byte_timeout: Duration::from_secs(10),
        connect_timeout: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(10),
        max_reply_bytes: MIB,
    }
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![ChatMessage::user("what happened?")],
        temperature: 0.0,
        max_tokens: 64,
        response_format: ResponseFormat::None,
    }
}

/// Streams a reply, counting the text handed to the sink without keeping it.
async fn stream(client: &OpenAiClient) -> (Result<ChatResponse, ModelError>, usize) {
    let mut seen = 0usize;
    let mut sink = |d: &str| seen += d.len();
    let r = client.complete_stream(&request(), &mut sink).await;
    (r, seen)
}

/// A field of /proc/self/status in KiB (VmHWM: the peak resident set).
fn status_kib(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.trim().strip_suffix("kB"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/self/status"))
}

#[tokio::test]
async fn absurd_token_counts_saturate_and_the_answer_stands() {
    for (usage, prompt, completion) in [
        (
            json!({"prompt_tokens": u64::MAX, "completion_tokens": u64::MAX, "total_tokens": u64::MAX}),
            u64::MAX,
            u64::MAX,
        ),
        (
            json!({"prompt_tokens": 1e30, "completion_tokens": -5}),
            u64::MAX,
            0,
        ),
        (
            json!({"prompt_tokens": "many", "completion_tokens": 18446744073709551616.0}),
            0,
            u64::MAX,
        ),
    ] {
        let server = LlmServer::start(vec![Behaviour::WithUsage {
            content: "the rate rose".into(),
            usage: usage.clone(),
        }])
        .await;
        let client = OpenAiClient::new(config(&server.base_url())).unwrap();
        let plain = client.complete(&request()).await.unwrap();
        let (streamed, _) = stream(&client).await;
        let streamed = streamed.unwrap();
        for r in [plain, streamed] {
            assert_eq!(r.content, "the rate rose", "{usage}");
            assert_eq!(r.usage.prompt_tokens, prompt, "{usage}");
            assert_eq!(r.usage.completion_tokens, completion, "{usage}");
            // Added with saturation: no overflow panic, no wrap to a small number.
            assert_eq!(
                r.usage.total(),
                prompt.saturating_add(completion),
                "{usage}"
            );
        }
    }
}

#[tokio::test]
async fn a_gigabyte_stream_stops_at_the_reply_cap_in_bounded_memory() {
    // Reset the peak-RSS mark so the figure below is this test's (Linux ≥ 4.0).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = status_kib("VmHWM:");
    let server = LlmServer::start(vec![Behaviour::HugeStream {
        total_bytes: 1 << 30,
        delta_bytes: 16 * 1024,
    }])
    .await;
    let client = OpenAiClient::new(config(&server.base_url())).unwrap();
    let started = Instant::now();
    let (r, seen) = stream(&client).await;
    let took = started.elapsed();
    let after = status_kib("VmHWM:");
    let err = r.unwrap_err();
    assert_eq!(err, ModelError::TooLarge { limit: MIB }, "{err}");
    assert_eq!(err.class(), ErrorClass::Recoverable);
    assert!(err.to_string().contains("llm.max_reply_bytes"), "{err}");
    // The sink saw at most the cap, and nothing was kept beyond it.
    assert!(seen <= MIB && seen > MIB / 2, "{seen}");
    let grown_mib = after.saturating_sub(before) / 1024;
    eprintln!("1 GiB stream: stopped after {took:?}, peak RSS grew {grown_mib} MiB");
    assert!(grown_mib < 100, "peak RSS grew by {grown_mib} MiB");
    assert!(took < Duration::from_secs(10), "{took:?}");
}

#[tokio::test]
async fn endless_data_lines_stop_at_the_event_cap() {
    let server = LlmServer::start(vec![Behaviour::EndlessDataLines { max_bytes: 1 << 30 }]).await;
    let mut cfg = config(&server.base_url());
    cfg.max_reply_bytes = 64 * 1024;
    let client = OpenAiClient::new(cfg).unwrap();
    let started = Instant::now();
    let (r, seen) = stream(&client).await;
    assert_eq!(r.unwrap_err(), ModelError::TooLarge { limit: 64 * 1024 });
    assert_eq!(seen, 0);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn endless_empty_events_stop_at_the_raw_cap() {
    let server = LlmServer::start(vec![Behaviour::EndlessEmptyEvents { max_bytes: 1 << 30 }]).await;
    let mut cfg = config(&server.base_url());
    // 16 KiB of text allows 1 MiB of stream.
    cfg.max_reply_bytes = 16 * 1024;
    let client = OpenAiClient::new(cfg).unwrap();
    let started = Instant::now();
    let (r, _) = stream(&client).await;
    assert_eq!(r.unwrap_err(), ModelError::TooLarge { limit: 16 * 1024 });
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_non_streamed_reply_past_the_cap_is_refused() {
    let server = LlmServer::start(vec![Behaviour::Json("y".repeat(2 * MIB))]).await;
    let client = OpenAiClient::new(config(&server.base_url())).unwrap();
    let err = client.complete(&request()).await.unwrap_err();
    assert_eq!(err, ModelError::TooLarge { limit: MIB });
    // Just under the cap is fine.
    let server = LlmServer::start(vec![Behaviour::Json("y".repeat(MIB - 10))]).await;
    let client = OpenAiClient::new(config(&server.base_url())).unwrap();
    assert_eq!(
        client.complete(&request()).await.unwrap().content.len(),
        MIB - 10
    );
}

#[tokio::test]
async fn a_stall_behind_keepalive_comments_hits_the_idle_timeout() {
    let server = LlmServer::start(vec![Behaviour::StallAfterFirstToken {
        first: "The committee".into(),
        every: Duration::from_millis(100),
        stall: Duration::from_secs(20),
    }])
    .await;
    let mut cfg = config(&server.base_url());
    cfg.idle_timeout = Duration::from_millis(600);
    let client = OpenAiClient::new(cfg).unwrap();
    let started = Instant::now();
    let (r, seen) = stream(&client).await;
    let took = started.elapsed();
    let err = r.unwrap_err();
    assert_eq!(
        err,
        ModelError::Stalled {
            after_ms: 600,
            partial: "The committee".into()
        }
    );
    assert_eq!(err.class(), ErrorClass::Timeout);
    assert_eq!(seen, "The committee".len());
    // Six keep-alives arrived meanwhile; none reset the clock.
    assert!(took >= Duration::from_millis(590), "{took:?}");
    assert!(took < Duration::from_secs(3), "{took:?}");
}

#[tokio::test]
async fn a_short_pause_between_events_is_not_a_stall() {
    let server = LlmServer::start(vec![Behaviour::StallAfterFirstToken {
        first: "The committee".into(),
        every: Duration::from_millis(100),
        stall: Duration::from_millis(300),
    }])
    .await;
    let mut cfg = config(&server.base_url());
    cfg.idle_timeout = Duration::from_secs(2);
    let client = OpenAiClient::new(cfg).unwrap();
    let (r, _) = stream(&client).await;
    assert_eq!(r.unwrap().content, "The committeeand the rest");
}

#[tokio::test]
async fn a_redirect_to_another_host_is_not_followed() {
    let elsewhere = LlmServer::start(vec![Behaviour::Json("stolen".into())]).await;
    for status in [301, 302, 307, 308] {
        let server = LlmServer::start(vec![Behaviour::Redirect {
            status,
            location: format!("{}/chat/completions?key=abc", elsewhere.base_url()),
        }])
        .await;
        let client = OpenAiClient::new(config(&server.base_url())).unwrap();
        let err = client.complete(&request()).await.unwrap_err();
        assert!(
            matches!(&err, ModelError::Http { status: s, .. } if *s == status),
            "{err:?}"
        );
        assert_eq!(err.class(), ErrorClass::Critical);
        let msg = err.to_string();
        assert!(
            msg.contains("llm.base_url") && msg.contains("key=***"),
            "{msg}"
        );
    }
    assert!(
        elsewhere.requests().is_empty(),
        "the prompt went to another host: {:?}",
        elsewhere.requests()
    );
}

#[tokio::test]
async fn a_same_origin_redirect_is_followed() {
    let server = LlmServer::start(vec![
        Behaviour::Redirect {
            status: 307,
            location: "/v1/chat/completions".into(),
        },
        Behaviour::Json("here".into()),
    ])
    .await;
    let client = OpenAiClient::new(config(&server.base_url())).unwrap();
    assert_eq!(client.complete(&request()).await.unwrap().content, "here");
    let reqs = server.chat_requests();
    assert_eq!(reqs.len(), 2);
    // 307 keeps the method and the body; the key stays on the same origin.
    assert_eq!(reqs[1].body["messages"][0]["content"], "what happened?");
    assert_eq!(
        reqs[1].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
}

#[tokio::test]
async fn a_key_echoed_in_an_error_body_is_redacted() {
    let server = LlmServer::start(vec![Behaviour::Status(
        401,
        json!({"error": {"message": format!("Incorrect API key provided: {KEY}.")}}).to_string(),
    )])
    .await;
    let client = OpenAiClient::new(config(&server.base_url())).unwrap();
    let err = client.complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Http { status: 401, .. }));
    for text in [err.to_string(), format!("{err:?}")] {
        assert!(!text.contains(KEY), "{text}");
        assert!(text.contains("[redacted]"), "{text}");
    }
    // The same inside a 200 that carries an error object.
    let server = LlmServer::start(vec![Behaviour::Status(
        200,
        json!({"error": {"message": format!("key {KEY} is over quota")}}).to_string(),
    )])
    .await;
    let client = OpenAiClient::new(config(&server.base_url())).unwrap();
    let err = client.complete(&request()).await.unwrap_err();
    assert!(!err.to_string().contains(KEY), "{err}");
}

#[tokio::test]
async fn credentials_in_the_base_url_are_never_printed() {
    let refused = refused_url().replace("http://", "http://user:sk-in-the-url-123@");
    let url = format!("{refused}?api_key=sk-in-the-query-456");
    let client = OpenAiClient::new(config(&url)).unwrap();
    let err = client.complete(&request()).await.unwrap_err();
    assert!(matches!(err, ModelError::Connect(_)), "{err:?}");
    for text in [
        err.to_string(),
        format!("{err:?}"),
        format!("{client:?}"),
        client.base_url(),
    ] {
        assert!(
            !text.contains("sk-in-the-url") && !text.contains("sk-in-the-query"),
            "{text}"
        );
    }
    assert!(err.to_string().contains("127.0.0.1"), "{err}");
}
