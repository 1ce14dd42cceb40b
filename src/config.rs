//! Configuration: defaults < config file < `FATHOM_*` environment < command-line flags.
//!
//! Every key is declared once in [`KEYS`] with its type, range and setter, so the file parser,
//! the environment overrides and `config.example.toml` all agree. Errors name the key, the file
//! and the line.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::index::embed::{EmbedRuntime, Precision};

#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub corpus: CorpusConfig,
    pub embedding: EmbeddingConfig,
    pub retrieval: RetrievalConfig,
    pub rerank: RerankConfig,
    pub llm: LlmConfig,
    pub agent: AgentConfig,
    pub log: LogConfig,
    pub paths: Paths,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CorpusConfig {
    pub dir: Option<PathBuf>,
    pub chunk_words: usize,
    pub chunk_max_words: usize,
    /// Index files that links inside the corpus folder point to outside it (off by default: a
    /// downloaded corpus must not pull in, say, `~/notes` and send it to a model server).
    pub follow_links_outside: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EmbeddingConfig {
    /// `None`: `<cache dir>/models/all-MiniLM-L6-v2`.
    pub model_dir: Option<PathBuf>,
    pub batch_size: usize,
    pub max_tokens: usize,
    pub query_prefix: String,
    pub runtime: EmbedRuntime,
    pub precision: Precision,
    /// `None`: `<cache dir>/onnxruntime/libonnxruntime.so`.
    pub onnxruntime_lib: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RetrievalConfig {
    pub k: usize,
    pub candidates: usize,
    pub rrf_k: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RerankConfig {
    pub model_dir: Option<PathBuf>,
    pub recency_boost: f64,
    pub recent_year_window: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub timeout_secs: u64,
    /// The first byte of a reply must come within this; a server that stalls is given up on.
    pub first_byte_timeout_secs: u64,
    /// Once a reply has started, its next event must come within this (keep-alive comments do
    /// not count).
    pub idle_timeout_secs: u64,
    /// The most bytes of text one reply may carry; the client stops reading past it.
    pub max_reply_bytes: usize,
    /// A whole query, every model call and retry included, ends by this many seconds.
    pub query_deadline_secs: u64,
    /// Retries of a transient or recoverable failure before the stage falls back.
    pub max_retries: u32,
    /// How long an open circuit breaker refuses calls before it lets one probe through.
    pub breaker_cooldown_secs: u64,
    pub max_tokens: u32,
    pub token_budget: u32,
    pub reflection_temperature: f64,
    /// Also ask the model to screen each question (after the offline guardrail's rules).
    pub guardrail: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    pub max_reformulations: u8,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LogConfig {
    pub level: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Paths {
    /// The config file actually read, if any.
    pub config_file: Option<PathBuf>,
    pub data_dir: PathBuf,
    pub cache_dir: PathBuf,
}

impl Default for Config {
    fn default() -> Self {
        let (data_dir, cache_dir, _) = default_dirs();
        Config {
            corpus: CorpusConfig {
                dir: None,
                chunk_words: 160,
                chunk_max_words: 200,
                follow_links_outside: false,
            },
            embedding: EmbeddingConfig {
                model_dir: None,
                batch_size: 32,
                max_tokens: 256,
                query_prefix: String::new(),
                runtime: EmbedRuntime::Auto,
                precision: Precision::Int8,
                onnxruntime_lib: None,
            },
            retrieval: RetrievalConfig {
                k: 10,
                candidates: 50,
                rrf_k: 60.0,
            },
            rerank: RerankConfig {
                model_dir: None,
                recency_boost: 0.05,
                recent_year_window: 3,
            },
            llm: LlmConfig {
                base_url: None,
                model: None,
                timeout_secs: 60,
                first_byte_timeout_secs: 30,
                idle_timeout_secs: 30,
                max_reply_bytes: 1024 * 1024,
                query_deadline_secs: 300,
                max_retries: 2,
                breaker_cooldown_secs: 30,
                max_tokens: 1024,
                token_budget: 4096,
                reflection_temperature: 0.0,
                guardrail: false,
            },
            agent: AgentConfig {
                max_reformulations: 2,
            },
            log: LogConfig {
                level: "info".into(),
            },
            paths: Paths {
                config_file: None,
                data_dir,
                cache_dir,
            },
        }
    }
}

impl Config {
    /// The ONNX Runtime library: `embedding.onnxruntime_lib`, else the one `make model` installs
    /// in the cache dir.
    pub fn onnxruntime_lib(&self) -> PathBuf {
        self.embedding.onnxruntime_lib.clone().unwrap_or_else(|| {
            self.paths
                .cache_dir
                .join("onnxruntime")
                .join("libonnxruntime.so")
        })
    }

    /// The embedding model folder: `embedding.model_dir`, else the default in the cache dir.
    pub fn model_dir(&self) -> PathBuf {
        self.embedding
            .model_dir
            .clone()
            .unwrap_or_else(|| self.paths.cache_dir.join("models").join("all-MiniLM-L6-v2"))
    }
}

fn default_dirs() -> (PathBuf, PathBuf, Option<PathBuf>) {
    match directories::ProjectDirs::from("", "", "fathom") {
        Some(p) => (
            p.data_dir().to_path_buf(),
            p.cache_dir().to_path_buf(),
            Some(p.config_dir().join("config.toml")),
        ),
        None => (
            PathBuf::from(".fathom/data"),
            PathBuf::from(".fathom/cache"),
            None,
        ),
    }
}

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ConfigError {
    #[error("config error: cannot read {file}: {reason}")]
    Unreadable { file: PathBuf, reason: String },
    #[error("config error: {file}:{line}: {message}")]
    InFile {
        file: PathBuf,
        line: usize,
        message: String,
    },
    #[error("config error: {var}={value:?}: {message}")]
    InEnv {
        var: String,
        value: String,
        message: String,
    },
}

/// Where configuration comes from besides the defaults.
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    pub config_file: Option<PathBuf>,
    pub data_dir: Option<PathBuf>,
    pub cache_dir: Option<PathBuf>,
    pub corpus_dir: Option<PathBuf>,
    /// Environment variables (only `FATHOM_*` and `AGENT_*` are read).
    pub env: BTreeMap<String, String>,
}

impl LoadOptions {
    pub fn from_process_env() -> Self {
        let env = std::env::vars()
            .filter(|(k, _)| k.starts_with("FATHOM_") || k.starts_with("AGENT_"))
            .collect();
        LoadOptions {
            env,
            ..LoadOptions::default()
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Kind {
    Str,
    Path,
    Url,
    Int {
        min: i64,
        max: i64,
    },
    Float {
        min: f64,
        max: f64,
        min_exclusive: bool,
    },
    Level,
    Bool,
    /// One of a fixed set of words.
    OneOf(&'static [&'static str]),
}

#[derive(Debug, Clone, PartialEq)]
enum Val {
    Str(String),
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl Val {
    fn str(self) -> String {
        match self {
            Val::Str(s) => s,
            Val::Int(i) => i.to_string(),
            Val::Float(f) => f.to_string(),
            Val::Bool(b) => b.to_string(),
        }
    }
    fn int(&self) -> i64 {
        match self {
            Val::Int(i) => *i,
            Val::Float(f) => *f as i64,
            Val::Str(_) | Val::Bool(_) => 0,
        }
    }
    fn float(&self) -> f64 {
        match self {
            Val::Float(f) => *f,
            Val::Int(i) => *i as f64,
            Val::Str(_) | Val::Bool(_) => 0.0,
        }
    }
    fn bool(&self) -> bool {
        matches!(self, Val::Bool(true))
    }
}

struct Key {
    section: &'static str,
    name: &'static str,
    kind: Kind,
    set: fn(&mut Config, Val),
}

const fn key(
    section: &'static str,
    name: &'static str,
    kind: Kind,
    set: fn(&mut Config, Val),
) -> Key {
    Key {
        section,
        name,
        kind,
        set,
    }
}

const fn int(min: i64, max: i64) -> Kind {
    Kind::Int { min, max }
}

/// Every key fathom reads. `section` "" is the top level.
const KEYS: &[Key] = &[
    key("", "data_dir", Kind::Path, |c, v| {
        c.paths.data_dir = PathBuf::from(v.str())
    }),
    key("", "cache_dir", Kind::Path, |c, v| {
        c.paths.cache_dir = PathBuf::from(v.str())
    }),
    key("corpus", "dir", Kind::Path, |c, v| {
        c.corpus.dir = Some(PathBuf::from(v.str()))
    }),
    key("corpus", "chunk_words", int(20, 400), |c, v| {
        c.corpus.chunk_words = v.int() as usize
    }),
    key("corpus", "chunk_max_words", int(20, 400), |c, v| {
        c.corpus.chunk_max_words = v.int() as usize
    }),
    key("corpus", "follow_links_outside", Kind::Bool, |c, v| {
        c.corpus.follow_links_outside = v.bool()
    }),
    key("embedding", "model_dir", Kind::Path, |c, v| {
        c.embedding.model_dir = Some(PathBuf::from(v.str()))
    }),
    key("embedding", "batch_size", int(1, 512), |c, v| {
        c.embedding.batch_size = v.int() as usize
    }),
    key("embedding", "max_tokens", int(16, 512), |c, v| {
        c.embedding.max_tokens = v.int() as usize
    }),
    key("embedding", "query_prefix", Kind::Str, |c, v| {
        c.embedding.query_prefix = v.str()
    }),
    key(
        "embedding",
        "runtime",
        Kind::OneOf(&["auto", "onnx", "candle"]),
        |c, v| c.embedding.runtime = EmbedRuntime::parse(&v.str()).unwrap_or(EmbedRuntime::Auto),
    ),
    key(
        "embedding",
        "precision",
        Kind::OneOf(&["int8", "fp32"]),
        |c, v| c.embedding.precision = Precision::parse(&v.str()).unwrap_or(Precision::Int8),
    ),
    key("embedding", "onnxruntime_lib", Kind::Path, |c, v| {
        c.embedding.onnxruntime_lib = Some(PathBuf::from(v.str()))
    }),
    key("retrieval", "k", int(1, 100), |c, v| {
        c.retrieval.k = v.int() as usize
    }),
    key("retrieval", "candidates", int(1, 1000), |c, v| {
        c.retrieval.candidates = v.int() as usize
    }),
    key(
        "retrieval",
        "rrf_k",
        Kind::Float {
            min: 0.0,
            max: 1e6,
            min_exclusive: true,
        },
        |c, v| c.retrieval.rrf_k = v.float(),
    ),
    key("rerank", "model_dir", Kind::Path, |c, v| {
        c.rerank.model_dir = Some(PathBuf::from(v.str()))
    }),
    key(
        "rerank",
        "recency_boost",
        Kind::Float {
            min: 0.0,
            max: 1.0,
            min_exclusive: false,
        },
        |c, v| c.rerank.recency_boost = v.float(),
    ),
    key("rerank", "recent_year_window", int(1, 100), |c, v| {
        c.rerank.recent_year_window = v.int() as u32
    }),
    key("llm", "base_url", Kind::Url, |c, v| {
        c.llm.base_url = Some(v.str())
    }),
    key("llm", "model", Kind::Str, |c, v| {
        c.llm.model = Some(v.str())
    }),
    key("llm", "timeout_secs", int(1, 3600), |c, v| {
        c.llm.timeout_secs = v.int() as u64
    }),
    key("llm", "first_byte_timeout_secs", int(1, 3600), |c, v| {
        c.llm.first_byte_timeout_secs = v.int() as u64
    }),
    key("llm", "idle_timeout_secs", int(1, 3600), |c, v| {
        c.llm.idle_timeout_secs = v.int() as u64
    }),
    key(
        "llm",
        "max_reply_bytes",
        int(1024, 64 * 1024 * 1024),
        |c, v| c.llm.max_reply_bytes = v.int() as usize,
    ),
    key("llm", "query_deadline_secs", int(1, 86_400), |c, v| {
        c.llm.query_deadline_secs = v.int() as u64
    }),
    key("llm", "max_retries", int(0, 5), |c, v| {
        c.llm.max_retries = v.int() as u32
    }),
    key("llm", "breaker_cooldown_secs", int(1, 3600), |c, v| {
        c.llm.breaker_cooldown_secs = v.int() as u64
    }),
    key("llm", "max_tokens", int(1, 32768), |c, v| {
        c.llm.max_tokens = v.int() as u32
    }),
    key("llm", "token_budget", int(256, 1_000_000), |c, v| {
        c.llm.token_budget = v.int() as u32
    }),
    key(
        "llm",
        "reflection_temperature",
        Kind::Float {
            min: 0.0,
            max: 2.0,
            min_exclusive: false,
        },
        |c, v| c.llm.reflection_temperature = v.float(),
    ),
    key("llm", "guardrail", Kind::Bool, |c, v| {
        c.llm.guardrail = v.bool()
    }),
    key("agent", "max_reformulations", int(0, 2), |c, v| {
        c.agent.max_reformulations = v.int() as u8
    }),
    key("log", "level", Kind::Level, |c, v| c.log.level = v.str()),
];

/// Environment variables with names other than `FATHOM_<SECTION>_<KEY>`.
const ENV_ALIASES: &[(&str, &str, &str)] = &[
    ("FATHOM_DATA_DIR", "", "data_dir"),
    ("FATHOM_CACHE_DIR", "", "cache_dir"),
    ("FATHOM_MODEL_DIR", "embedding", "model_dir"),
    ("FATHOM_CORPUS_DIR", "corpus", "dir"),
    ("FATHOM_LLM_BASE_URL", "llm", "base_url"),
    ("FATHOM_LLM_MODEL", "llm", "model"),
    ("AGENT_RERANK_RECENCY_BOOST", "rerank", "recency_boost"),
    (
        "AGENT_REFLECTION_TEMPERATURE",
        "llm",
        "reflection_temperature",
    ),
];

fn dotted(section: &str, name: &str) -> String {
    if section.is_empty() {
        name.to_string()
    } else {
        format!("{section}.{name}")
    }
}

fn check(kind: Kind, v: Val) -> Result<Val, String> {
    match (kind, &v) {
        (Kind::Str | Kind::Path, Val::Str(_)) => Ok(v),
        (Kind::Url, Val::Str(s)) if s.starts_with("http://") || s.starts_with("https://") => Ok(v),
        (Kind::Url, Val::Str(s)) => Err(format!("{s:?} is not an http:// or https:// URL")),
        (Kind::Level, Val::Str(s))
            if ["error", "warn", "info", "debug", "trace"].contains(&s.as_str()) =>
        {
            Ok(v)
        }
        (Kind::Level, _) => Err("expected one of error, warn, info, debug, trace".into()),
        (Kind::OneOf(words), Val::Str(s)) if words.contains(&s.as_str()) => Ok(v),
        (Kind::OneOf(words), _) => Err(format!("expected one of {}", words.join(", "))),
        (Kind::Int { min, max }, Val::Int(i)) if (min..=max).contains(i) => Ok(v),
        (Kind::Int { min, max }, Val::Int(i)) => {
            Err(format!("{i} is out of range ({min}..={max})"))
        }
        (
            Kind::Float {
                min,
                max,
                min_exclusive,
            },
            Val::Float(_) | Val::Int(_),
        ) => {
            let f = v.float();
            let low_ok = if min_exclusive { f > min } else { f >= min };
            if low_ok && f <= max && f.is_finite() {
                Ok(Val::Float(f))
            } else {
                let lo = if min_exclusive {
                    format!("> {min}")
                } else {
                    format!(">= {min}")
                };
                Err(format!("{f} is out of range ({lo} and <= {max})"))
            }
        }
        (Kind::Bool, Val::Bool(_)) => Ok(v),
        (Kind::Bool, _) => Err("expected true or false".into()),
        (Kind::Int { .. }, _) => Err("expected an integer".into()),
        (Kind::Float { .. }, _) => Err("expected a number".into()),
        (Kind::Str | Kind::Path | Kind::Url, _) => Err("expected a string".into()),
    }
}

fn from_toml(v: &toml::Value) -> Option<Val> {
    match v {
        toml::Value::String(s) => Some(Val::Str(s.clone())),
        toml::Value::Integer(i) => Some(Val::Int(*i)),
        toml::Value::Float(f) => Some(Val::Float(*f)),
        toml::Value::Boolean(b) => Some(Val::Bool(*b)),
        _ => None,
    }
}

fn from_env(kind: Kind, s: &str) -> Option<Val> {
    match kind {
        Kind::Int { .. } => s.trim().parse().ok().map(Val::Int),
        Kind::Float { .. } => s.trim().parse().ok().map(Val::Float),
        Kind::Bool => match s.trim() {
            "1" | "true" | "yes" | "on" => Some(Val::Bool(true)),
            "0" | "false" | "no" | "off" => Some(Val::Bool(false)),
            _ => None,
        },
        _ => Some(Val::Str(s.to_string())),
    }
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .bytes()
        .filter(|&b| b == b'\n')
        .count()
        + 1
}

/// Byte offset of `section.name` (or of the section header when `name` is None) in the file.
fn find_key<'a, 'i>(
    t: &'a toml::de::DeTable<'i>,
    k: &str,
) -> Option<(usize, &'a toml::Spanned<toml::de::DeValue<'i>>)> {
    t.iter()
        .find(|(key, _)| key.get_ref().as_ref() == k)
        .map(|(key, v)| (key.span().start, v))
}

fn key_offset(de: &toml::de::DeTable, section: &str, name: Option<&str>) -> Option<usize> {
    let find = find_key;
    if section.is_empty() {
        return find(de, name?).map(|(o, _)| o);
    }
    let (sec_off, sec_val) = find(de, section)?;
    let Some(name) = name else {
        return Some(sec_off);
    };
    match sec_val.get_ref() {
        toml::de::DeValue::Table(t) => find(t, name).map(|(o, _)| o),
        _ => None,
    }
}

impl Config {
    /// Loads the configuration: defaults, then the file, then the environment, then flags.
    pub fn load(opts: &LoadOptions) -> Result<Config, ConfigError> {
        let (_, _, default_file) = default_dirs();
        let explicit = opts
            .config_file
            .clone()
            .or_else(|| opts.env.get("FATHOM_CONFIG").map(PathBuf::from));
        let mut cfg = match (&explicit, default_file) {
            (Some(file), _) => Config::from_file(file)?,
            (None, Some(file)) if file.exists() => Config::from_file(&file)?,
            _ => Config::default(),
        };
        cfg.apply_env(&opts.env)?;
        if let Some(d) = &opts.data_dir {
            cfg.paths.data_dir = d.clone();
        }
        if let Some(d) = &opts.cache_dir {
            cfg.paths.cache_dir = d.clone();
        }
        if let Some(d) = &opts.corpus_dir {
            cfg.corpus.dir = Some(d.clone());
        }
        cfg.check_consistency()
            .map_err(|(key, message)| match &cfg.paths.config_file {
                Some(file) => ConfigError::InFile {
                    file: file.clone(),
                    line: 0,
                    message: format!("{key}: {message}"),
                },
                None => ConfigError::InEnv {
                    var: key,
                    value: String::new(),
                    message,
                },
            })?;
        Ok(cfg)
    }

    pub fn from_file(file: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(file).map_err(|e| ConfigError::Unreadable {
            file: file.to_path_buf(),
            reason: e.to_string(),
        })?;
        Config::from_toml_str(&text, file)
    }

    /// Parses config text; `file` is used in messages and recorded in `paths.config_file`.
    pub fn from_toml_str(text: &str, file: &Path) -> Result<Config, ConfigError> {
        let at = |offset: usize, message: String| ConfigError::InFile {
            file: file.to_path_buf(),
            line: line_of(text, offset),
            message,
        };
        let de = toml::de::DeTable::parse(text)
            .map_err(|e| at(e.span().map_or(0, |s| s.start), e.message().to_string()))?;
        let de = de.get_ref();
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            at(e.span().map_or(0, |s| s.start), e.message().to_string())
        })?;
        let mut cfg = Config::default();
        cfg.paths.config_file = Some(file.to_path_buf());
        for (name, value) in &table {
            match value {
                toml::Value::Table(section) if KEYS.iter().any(|k| k.section == name) => {
                    for (k, v) in section {
                        let offset = key_offset(de, name, Some(k)).unwrap_or(0);
                        cfg.set_from_toml(name, k, v).map_err(|m| at(offset, m))?;
                    }
                }
                toml::Value::Table(_) => {
                    let offset = key_offset(de, name, None).unwrap_or(0);
                    let sections: Vec<&str> = KEYS
                        .iter()
                        .map(|k| k.section)
                        .filter(|s| !s.is_empty())
                        .collect::<std::collections::BTreeSet<_>>()
                        .into_iter()
                        .collect();
                    return Err(at(
                        offset,
                        format!(
                            "unknown section `[{name}]` (known sections: {})",
                            sections.join(", ")
                        ),
                    ));
                }
                v => {
                    let offset = key_offset(de, "", Some(name)).unwrap_or(0);
                    cfg.set_from_toml("", name, v).map_err(|m| at(offset, m))?;
                }
            }
        }
        cfg.check_consistency().map_err(|(key, message)| {
            let (section, name) = key.split_once('.').unwrap_or(("", key.as_str()));
            at(
                key_offset(de, section, Some(name)).unwrap_or(0),
                format!("{key}: {message}"),
            )
        })?;
        Ok(cfg)
    }

    fn set_from_toml(&mut self, section: &str, name: &str, v: &toml::Value) -> Result<(), String> {
        let Some(key) = KEYS.iter().find(|k| k.section == section && k.name == name) else {
            let known: Vec<&str> = KEYS
                .iter()
                .filter(|k| k.section == section)
                .map(|k| k.name)
                .collect();
            return Err(format!(
                "unknown key `{}` (known keys: {})",
                dotted(section, name),
                known.join(", ")
            ));
        };
        let val = from_toml(v)
            .ok_or_else(|| format!("{}: expected a single value", dotted(section, name)))?;
        let val =
            check(key.kind, val).map_err(|m| format!("{} = {v}: {m}", dotted(section, name)))?;
        (key.set)(self, val);
        Ok(())
    }

    /// `FATHOM_<SECTION>_<KEY>` and the aliases override keys; unknown variables are ignored
    /// because other parts of fathom (and users' shells) define their own `FATHOM_*` names.
    fn apply_env(&mut self, env: &BTreeMap<String, String>) -> Result<(), ConfigError> {
        for (var, value) in env {
            let target = ENV_ALIASES
                .iter()
                .find(|(a, _, _)| a == var)
                .map(|(_, s, k)| (*s, *k))
                .or_else(|| {
                    KEYS.iter()
                        .find(|k| {
                            !k.section.is_empty()
                                && *var == format!("FATHOM_{}_{}", k.section, k.name).to_uppercase()
                        })
                        .map(|k| (k.section, k.name))
                });
            let Some((section, name)) = target else {
                continue;
            };
            let Some(key) = KEYS.iter().find(|k| k.section == section && k.name == name) else {
                continue;
            };
            let err = |message: String| ConfigError::InEnv {
                var: var.clone(),
                value: value.clone(),
                message,
            };
            let val = from_env(key.kind, value)
                .ok_or_else(|| err(format!("expected {}", kind_name(key.kind))))?;
            let val = check(key.kind, val).map_err(err)?;
            (key.set)(self, val);
        }
        Ok(())
    }

    /// Rules between keys: `(key, message)` of the first one broken.
    fn check_consistency(&self) -> Result<(), (String, String)> {
        if self.corpus.chunk_words > self.corpus.chunk_max_words {
            return Err((
                "corpus.chunk_words".into(),
                format!(
                    "{} is larger than corpus.chunk_max_words ({})",
                    self.corpus.chunk_words, self.corpus.chunk_max_words
                ),
            ));
        }
        if self.retrieval.candidates < self.retrieval.k {
            return Err((
                "retrieval.candidates".into(),
                format!(
                    "{} is smaller than retrieval.k ({})",
                    self.retrieval.candidates, self.retrieval.k
                ),
            ));
        }
        Ok(())
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Int { .. } => "an integer",
        Kind::Float { .. } => "a number",
        _ => "a string",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::from_toml_str(text, Path::new("/etc/fathom.toml"))
    }

    #[test]
    fn defaults_are_the_documented_values() {
        let c = Config::default();
        assert_eq!(c.corpus.chunk_words, 160);
        assert_eq!(c.corpus.chunk_max_words, 200);
        assert_eq!(c.embedding.batch_size, 32);
        assert_eq!(c.embedding.max_tokens, 256);
        assert_eq!(c.retrieval.k, 10);
        assert_eq!(c.retrieval.candidates, 50);
        assert_eq!(c.retrieval.rrf_k, 60.0);
        assert_eq!(c.rerank.recency_boost, 0.05);
        assert_eq!(c.rerank.recent_year_window, 3);
        assert_eq!(c.llm.reflection_temperature, 0.0);
        assert_eq!(c.llm.idle_timeout_secs, 30);
        assert_eq!(c.llm.max_reply_bytes, 1024 * 1024);
        assert_eq!(c.llm.query_deadline_secs, 300);
        assert!(!c.corpus.follow_links_outside);
        assert_eq!(c.agent.max_reformulations, 2);
        assert!(c.model_dir().ends_with("models/all-MiniLM-L6-v2"));
    }

    /// The example documents every key: uncommenting its `# key = value` lines must give exactly
    /// the defaults, and every key in [`KEYS`] must appear.
    #[test]
    fn example_file_documents_every_key_with_its_default() {
        let example = include_str!("../config.example.toml");
        assert_eq!(
            parse(example).unwrap().corpus,
            Config::default().corpus,
            "the example parses as-is"
        );
        let uncommented: String = example
            .lines()
            .map(|l| {
                l.strip_prefix("# ")
                    .filter(|r| r.contains(" = ") && !r.contains("# no default"))
                    .unwrap_or(l)
            })
            .collect::<Vec<_>>()
            .join("\n");
        let mut from_example = parse(&uncommented).unwrap();
        let mut defaults = Config::default();
        from_example.paths = defaults.paths.clone();
        defaults.paths = from_example.paths.clone();
        assert_eq!(from_example, defaults);
        for k in KEYS {
            let line = format!("# {} = ", k.name);
            assert!(
                example.contains(&line),
                "config.example.toml does not document {}",
                dotted(k.section, k.name)
            );
        }
    }

    #[test]
    fn unknown_key_names_key_file_and_line() {
        let err = parse("[retrieval]\nk = 5\n\nrrf = 3\n").unwrap_err();
        let msg = err.to_string();
        assert_eq!(
            err,
            ConfigError::InFile {
                file: "/etc/fathom.toml".into(),
                line: 4,
                message: msg.split(":4: ").nth(1).unwrap().to_string()
            }
        );
        assert!(msg.contains("unknown key `retrieval.rrf`"), "{msg}");
        assert!(msg.contains("rrf_k"), "lists the known keys: {msg}");
        assert!(!msg.contains('\n'), "one line");
        let err = parse("\n\n[nonsense]\nx = 1\n").unwrap_err().to_string();
        assert!(err.contains(":3:") && err.contains("[nonsense]"), "{err}");
    }

    #[test]
    fn bad_values_name_key_and_line() {
        let msg = parse("[retrieval]\n\nk = \"ten\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(":3:") && msg.contains("retrieval.k") && msg.contains("integer"),
            "{msg}"
        );
        let msg = parse("[retrieval]\nk = 0\n").unwrap_err().to_string();
        assert!(msg.contains(":2:") && msg.contains("out of range"), "{msg}");
        let msg = parse("[rerank]\nrecency_boost = 1.5\n")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("rerank.recency_boost") && msg.contains("out of range"),
            "{msg}"
        );
        let msg = parse("[llm]\nbase_url = \"localhost:8080\"\n")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("llm.base_url") && msg.contains("URL"), "{msg}");
        let msg = parse("[corpus]\nchunk_words = 300\n")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains(":2:") && msg.contains("chunk_max_words"),
            "{msg}"
        );
        let msg = parse("[retrieval]\nk = \n").unwrap_err().to_string();
        assert!(
            msg.contains("/etc/fathom.toml:2:"),
            "syntax errors carry the line: {msg}"
        );
    }

    #[test]
    fn embedding_runtime_and_precision_take_only_their_words() {
        let c = parse("[embedding]\nruntime = \"candle\"\nprecision = \"fp32\"\n").unwrap();
        assert_eq!(c.embedding.runtime, EmbedRuntime::Candle);
        assert_eq!(c.embedding.precision, Precision::Fp32);
        let msg = parse("[embedding]\nruntime = \"gpu\"\n")
            .unwrap_err()
            .to_string();
        assert!(
            msg.contains("embedding.runtime") && msg.contains("auto, onnx, candle"),
            "{msg}"
        );
        let msg = parse("[embedding]\nprecision = \"bf16\"\n")
            .unwrap_err()
            .to_string();
        assert!(msg.contains("int8, fp32"), "{msg}");
        let d = Config::default();
        assert_eq!(
            d.onnxruntime_lib(),
            d.paths.cache_dir.join("onnxruntime/libonnxruntime.so")
        );
    }

    #[test]
    fn env_overrides_file_and_flags_override_env() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.toml");
        std::fs::write(
            &file,
            "data_dir = \"/from/file\"\n[retrieval]\nk = 3\nrrf_k = 10.0\n",
        )
        .unwrap();
        let mut opts = LoadOptions {
            config_file: Some(file.clone()),
            ..LoadOptions::default()
        };
        opts.env.insert("FATHOM_RETRIEVAL_K".into(), "7".into());
        opts.env
            .insert("FATHOM_DATA_DIR".into(), "/from/env".into());
        opts.env.insert("FATHOM_UNRELATED".into(), "x".into());
        let c = Config::load(&opts).unwrap();
        assert_eq!(c.retrieval.k, 7);
        assert_eq!(c.retrieval.rrf_k, 10.0);
        assert_eq!(c.paths.data_dir, PathBuf::from("/from/env"));
        assert_eq!(c.paths.config_file, Some(file));
        opts.data_dir = Some("/from/flag".into());
        assert_eq!(
            Config::load(&opts).unwrap().paths.data_dir,
            PathBuf::from("/from/flag")
        );
    }

    #[test]
    fn aliases_and_bad_env_values() {
        let mut opts = LoadOptions {
            config_file: None,
            ..LoadOptions::default()
        };
        opts.env
            .insert("AGENT_RERANK_RECENCY_BOOST".into(), "0.1".into());
        opts.env
            .insert("FATHOM_MODEL_DIR".into(), "/models/bge".into());
        opts.env.insert(
            "FATHOM_LLM_BASE_URL".into(),
            "http://127.0.0.1:8080/v1".into(),
        );
        let c = Config::load(&opts).unwrap();
        assert_eq!(c.rerank.recency_boost, 0.1);
        assert_eq!(c.model_dir(), PathBuf::from("/models/bge"));
        assert_eq!(c.llm.base_url.as_deref(), Some("http://127.0.0.1:8080/v1"));
        opts.env.insert("FATHOM_RETRIEVAL_K".into(), "abc".into());
        let msg = Config::load(&opts).unwrap_err().to_string();
        assert!(
            msg.contains("FATHOM_RETRIEVAL_K") && msg.contains("integer"),
            "{msg}"
        );
    }

    #[test]
    fn a_missing_explicit_file_is_an_error() {
        let opts = LoadOptions {
            config_file: Some("/no/such/config.toml".into()),
            ..LoadOptions::default()
        };
        let msg = Config::load(&opts).unwrap_err().to_string();
        assert!(msg.contains("cannot read /no/such/config.toml"), "{msg}");
    }
}
