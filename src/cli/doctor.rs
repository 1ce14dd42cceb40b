//! `fathom doctor`: is the configured model server reachable, which models does it offer, and
//! which structured-output form does it accept. Offline, it says so and what would change that.

use fathom::config::Config;
use fathom::model::openai::StructuredMode;
use fathom::model::ChatMessage;
use fathom::orchestrator::chat::{api_key_from_env, client_from_config};
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct DoctorArgs {
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(cfg: &Config, args: &DoctorArgs) -> anyhow::Result<ExitCode> {
    let model_dir = cfg.model_dir();
    let embedder = if model_dir.join("model.safetensors").exists() {
        format!("installed at {}", model_dir.display())
    } else {
        format!(
            "missing at {} (run `make model`): BM25 only",
            model_dir.display()
        )
    };
    let Some(client) = client_from_config(&cfg.llm, api_key_from_env())
        .map_err(|e| super::UsageError(e.to_string()))?
    else {
        let report = serde_json::json!({
            "embedding_model": embedder,
            "llm": "not configured: answers are extractive (set llm.base_url and llm.model, or FATHOM_LLM_BASE_URL and FATHOM_LLM_MODEL)",
        });
        print(args.json, &report);
        return Ok(ExitCode::SUCCESS);
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    // Printed without any user name, password or query values it may carry.
    let base_url = client.base_url();
    let (models, structured, latency_ms, ok) = rt.block_on(async {
        let t = Instant::now();
        let models = client.list_models().await;
        let probe_schema = serde_json::json!({
            "type": "object",
            "properties": {"ok": {"type": "boolean"}},
            "required": ["ok"],
            "additionalProperties": false
        });
        let messages = |_: StructuredMode| {
            vec![
                ChatMessage::system("Reply with one JSON object: {\"ok\": true}."),
                ChatMessage::user("Are you there?"),
            ]
        };
        let probe = client
            .complete_structured(&messages, "doctor_probe", &probe_schema, 0.0, 16, None)
            .await;
        let latency = t.elapsed().as_millis() as u64;
        let structured = match &probe {
            Ok((_, mode)) => mode.as_str().to_string(),
            Err(e) => format!("unknown: {e}"),
        };
        let ok = models.is_ok() || probe.is_ok();
        (models, structured, latency, ok)
    });
    let report = serde_json::json!({
        "embedding_model": embedder,
        "llm": {
            "base_url": base_url,
            "model": client.model(),
            "api_key": if api_key_from_env().is_some() { "set (from the environment)" } else { "not set" },
            "reachable": ok,
            "models": match &models { Ok(m) => serde_json::json!(m), Err(e) => serde_json::json!(format!("error: {e}")) },
            "model_listed": models.as_ref().map(|m| m.iter().any(|x| x == client.model())).unwrap_or(false),
            "structured_output": structured,
            "latency_ms": latency_ms,
        }
    });
    print(args.json, &report);
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn print(json: bool, report: &serde_json::Value) {
    if json {
        super::print_json(&serde_json::to_string_pretty(report).unwrap_or_default());
        return;
    }
    fn walk(prefix: &str, v: &serde_json::Value) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, v) in m {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&p, v);
                }
            }
            serde_json::Value::String(s) => outln!("{prefix:<22} {s}"),
            other => outln!("{prefix:<22} {other}"),
        }
    }
    walk("", report);
}
