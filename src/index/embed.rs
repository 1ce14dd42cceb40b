//! The in-process sentence-embedding model: a BERT encoder with mean or CLS pooling and L2
//! normalisation, loaded from a sentence-transformers folder (`config.json`, `tokenizer.json`,
//! `model.safetensors`, optionally `1_Pooling/config.json`).
//!
//! Two runtimes run the encoder: ONNX Runtime (`onnx/model*.onnx` in the model folder, built from
//! the same weights by `make model`; several times faster on CPUs with AVX-512) and candle (pure
//! Rust, needs nothing beyond the safetensors file). [`EmbedRuntime::Auto`] takes ONNX Runtime
//! when it is installed and falls back to candle with a notice when it is not.
//!
//! Texts are tokenised in parallel, sorted by token length and run in batches of similar lengths,
//! so little compute is spent on padding; the attention mask keeps padding from changing results.
//! A query is a batch of one, as long as its own tokens. The helpers at the bottom (loading,
//! batching) are shared with the cross-encoder.

use std::path::{Path, PathBuf};

pub use super::embed_error::EmbedError;
use super::onnx_bert::{OnnxBert, PaddedBatch};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{
    EncodeInput, Encoding, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy,
};

/// Fewest tokens a model input may be truncated to: room for the special tokens and some text.
const MIN_TOKENS: usize = 8;

/// How token vectors become one text vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    /// Average of the token vectors, padding excluded.
    Mean,
    /// The vector of the first (`[CLS]`) token.
    Cls,
}

impl Pooling {
    pub fn as_str(self) -> &'static str {
        match self {
            Pooling::Mean => "mean",
            Pooling::Cls => "cls",
        }
    }

    /// Parses a sentence-transformers `1_Pooling/config.json`: `pooling_mode_cls_token` → `Cls`,
    /// `pooling_mode_mean_tokens` → `Mean`. Other modes (max, mean-sqrt-len, combinations) are
    /// not supported and give an error message.
    pub fn from_config_json(text: &str) -> Result<Pooling, String> {
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let flag = |key: &str| {
            v.get(key)
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false)
        };
        let cls = flag("pooling_mode_cls_token");
        let mean = flag("pooling_mode_mean_tokens");
        let others: Vec<&str> = [
            "pooling_mode_max_tokens",
            "pooling_mode_mean_sqrt_len_tokens",
            "pooling_mode_weightedmean_tokens",
            "pooling_mode_lasttoken",
        ]
        .into_iter()
        .filter(|k| flag(k))
        .collect();
        match (cls, mean, others.is_empty()) {
            (true, false, true) => Ok(Pooling::Cls),
            (false, true, true) => Ok(Pooling::Mean),
            (false, false, true) => Err("no pooling mode enabled".to_string()),
            _ => {
                let mut on: Vec<&str> = others;
                if cls {
                    on.push("pooling_mode_cls_token");
                }
                if mean {
                    on.push("pooling_mode_mean_tokens");
                }
                Err(format!(
                    "unsupported pooling ({}); only a single cls or mean mode is",
                    on.join(" + ")
                ))
            }
        }
    }

    /// The pooling a model folder asks for; `Mean` when it has no `1_Pooling/config.json`.
    pub fn for_model_dir(dir: &Path) -> Result<Pooling, EmbedError> {
        let path = dir.join("1_Pooling").join("config.json");
        if !path.exists() {
            return Ok(Pooling::Mean);
        }
        let text = std::fs::read_to_string(&path).map_err(|e| EmbedError::bad(&path, e))?;
        Pooling::from_config_json(&text).map_err(|reason| EmbedError::bad(&path, reason))
    }
}

/// Which engine runs the encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EmbedRuntime {
    /// ONNX Runtime when its library and the model's ONNX file are installed, else candle (with
    /// a notice saying why).
    Auto,
    /// ONNX Runtime or an error.
    Onnx,
    /// candle, always.
    Candle,
}

impl EmbedRuntime {
    pub fn parse(s: &str) -> Option<EmbedRuntime> {
        match s {
            "auto" => Some(EmbedRuntime::Auto),
            "onnx" => Some(EmbedRuntime::Onnx),
            "candle" => Some(EmbedRuntime::Candle),
            _ => None,
        }
    }
}

/// The weights ONNX Runtime computes with (candle always uses fp32).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Precision {
    /// The checkpoint's float32 weights: the same vectors as candle's.
    Fp32,
    /// Weights quantised to int8 per output channel, activations per batch at run time.
    Int8,
}

impl Precision {
    pub fn parse(s: &str) -> Option<Precision> {
        match s {
            "fp32" => Some(Precision::Fp32),
            "int8" => Some(Precision::Int8),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Fp32 => "fp32",
            Precision::Int8 => "int8",
        }
    }

    /// The graph's file inside the model folder.
    pub fn onnx_file(self, model_dir: &Path) -> PathBuf {
        let name = match self {
            Precision::Fp32 => "model.onnx",
            Precision::Int8 => "model_int8.onnx",
        };
        model_dir.join("onnx").join(name)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedOptions {
    /// Texts are truncated to this many tokens (special tokens included), and to the model's
    /// `max_position_embeddings`.
    pub max_tokens: usize,
    /// Texts per forward pass.
    pub batch_size: usize,
    /// Prepended to queries (not documents), e.g. `"query: "` for E5 models; empty for MiniLM.
    pub query_prefix: String,
    pub runtime: EmbedRuntime,
    /// Used by ONNX Runtime only.
    pub precision: Precision,
    /// The ONNX Runtime shared library (`libonnxruntime.so`); `None` means none is installed.
    pub onnxruntime_lib: Option<PathBuf>,
}

/// candle, which needs nothing beyond the model folder; the app's configuration asks for `Auto`.
impl Default for EmbedOptions {
    fn default() -> Self {
        EmbedOptions {
            max_tokens: 256,
            batch_size: 32,
            query_prefix: String::new(),
            runtime: EmbedRuntime::Candle,
            precision: Precision::Fp32,
            onnxruntime_lib: None,
        }
    }
}

/// The engine a loaded [`Embedder`] runs.
enum Encoder {
    Candle(Box<BertModel>),
    Onnx {
        bert: Box<OnnxBert>,
        precision: Precision,
    },
}

/// A loaded sentence-embedding model. Thread-safe; calls run on the CPU using all cores.
pub struct Embedder {
    encoder: Encoder,
    /// Why `Auto` fell back to candle, for the user.
    notice: Option<String>,
    /// Truncates to `max_len`, never pads (batches are padded by hand).
    tokenizer: Tokenizer,
    /// The same tokenizer without truncation, for [`Embedder::count_tokens`].
    counting_tokenizer: Tokenizer,
    pooling: Pooling,
    hidden_size: usize,
    pad_id: u32,
    batch_size: usize,
    query_prefix: String,
    model_id: String,
    device: Device,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("model_id", &self.model_id)
            .finish_non_exhaustive()
    }
}

impl Embedder {
    /// Loads the model in `dir` on the runtime `opts` asks for. Errors name the file that is
    /// missing or malformed.
    pub fn load(dir: &Path, opts: EmbedOptions) -> Result<Embedder, EmbedError> {
        let files = ModelFiles::in_dir(dir)?;
        let config = read_config(&files.config)?;
        let pooling = Pooling::for_model_dir(dir)?;
        let max_len = effective_max_len(opts.max_tokens, &config)?;
        let counting_tokenizer = read_tokenizer(&files.tokenizer)?;
        let tokenizer = truncating(counting_tokenizer.clone(), max_len, &files.tokenizer)?;
        let device = Device::Cpu;
        let size = std::fs::metadata(&files.weights)
            .map_err(|e| EmbedError::bad(&files.weights, e))?
            .len();
        let (encoder, notice) = match opts.runtime {
            EmbedRuntime::Candle => (candle_encoder(&files, &config, &device)?, None),
            EmbedRuntime::Onnx => (onnx_encoder(dir, &opts, config.hidden_size)?, None),
            EmbedRuntime::Auto => match onnx_encoder(dir, &opts, config.hidden_size) {
                Ok(encoder) => (encoder, None),
                Err(why) => {
                    let notice = format!(
                        "embedding with candle (slower): ONNX Runtime is not usable ({why}); \
                         `make model` installs it"
                    );
                    tracing::warn!("{notice}");
                    (candle_encoder(&files, &config, &device)?, Some(notice))
                }
            },
        };
        let mut model_id = format!(
            "{}:{}:{}:{}:{}",
            dir_name(dir),
            config.hidden_size,
            size,
            pooling.as_str(),
            max_len
        );
        // fp32 ONNX vectors equal candle's to ~1e-6 (docs/benchmarks.md) and share its id, so an
        // index built by either serves both; int8 vectors differ measurably and get their own.
        if let Encoder::Onnx {
            precision: Precision::Int8,
            ..
        } = encoder
        {
            model_id.push_str(":int8");
        }
        Ok(Embedder {
            encoder,
            notice,
            tokenizer,
            counting_tokenizer,
            pooling,
            hidden_size: config.hidden_size,
            pad_id: pad_id(&config),
            batch_size: opts.batch_size.max(1),
            query_prefix: opts.query_prefix,
            model_id,
            device,
        })
    }

    /// What runs the encoder: `"candle"`, `"onnx-fp32"` or `"onnx-int8"`.
    pub fn runtime(&self) -> &'static str {
        match &self.encoder {
            Encoder::Candle(_) => "candle",
            Encoder::Onnx {
                precision: Precision::Fp32,
                ..
            } => "onnx-fp32",
            Encoder::Onnx {
                precision: Precision::Int8,
                ..
            } => "onnx-int8",
        }
    }

    /// Why [`EmbedRuntime::Auto`] fell back to candle, if it did: one line for the user.
    pub fn notice(&self) -> Option<&str> {
        self.notice.as_deref()
    }

    /// Length of the vectors.
    pub fn dim(&self) -> usize {
        self.hidden_size
    }

    /// The model's identity for the index manifest:
    /// `<folder name>:<hidden size>:<bytes of model.safetensors>:<pooling>:<max tokens>`, e.g.
    /// `all-MiniLM-L6-v2:384:90868376:mean:256`, with `:int8` appended for int8 weights. Vectors
    /// made under different ids don't mix.
    pub fn model_id(&self) -> String {
        self.model_id.clone()
    }

    pub fn pooling(&self) -> Pooling {
        self.pooling
    }

    /// One L2-normalised vector per text, in input order.
    pub fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inputs: Vec<EncodeInput> = texts.iter().map(|t| EncodeInput::from(*t)).collect();
        let encodings = encode_all(&self.tokenizer, inputs)?;
        let lens: Vec<usize> = encodings.iter().map(Encoding::len).collect();
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for batch in length_sorted_batches(&lens, self.batch_size) {
            let members: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            let vectors = self.forward(&members)?;
            for (i, v) in batch.into_iter().zip(vectors) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    /// The vector of a query: `query_prefix + text`, embedded like a document.
    pub fn embed_query(&self, text: &str) -> Result<Vec<f32>, EmbedError> {
        let prefixed = format!("{}{}", self.query_prefix, text);
        let mut vectors = self.embed_documents(&[prefixed.as_str()])?;
        vectors
            .pop()
            .ok_or_else(|| EmbedError::Tokenizer("no vector for the query".to_string()))
    }

    /// Tokens of `text` as the model tokenises it, special tokens included, before truncation.
    pub fn count_tokens(&self, text: &str) -> usize {
        self.counting_tokenizer
            .encode_fast(text, true)
            .map(|e| e.len())
            .unwrap_or(0)
    }

    fn forward(&self, batch: &[&Encoding]) -> Result<Vec<Vec<f32>>, EmbedError> {
        match &self.encoder {
            Encoder::Candle(model) => self.forward_candle(model, batch),
            Encoder::Onnx { bert, .. } => {
                let padded = PaddedBatch::new(batch, self.pad_id);
                let hidden = bert.last_hidden(&padded)?;
                let mut rows = pool(&hidden, &padded, self.hidden_size, self.pooling);
                for row in &mut rows {
                    l2_normalise(row);
                }
                Ok(rows)
            }
        }
    }

    fn forward_candle(
        &self,
        model: &BertModel,
        batch: &[&Encoding],
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let inputs = BatchTensors::new(batch, self.pad_id, &self.device)?;
        let hidden = model.forward(&inputs.ids, &inputs.type_ids, Some(&inputs.mask))?;
        let pooled = match self.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Mean => {
                let mask = inputs.mask.to_dtype(DType::F32)?;
                let summed = hidden.broadcast_mul(&mask.unsqueeze(2)?)?.sum(1)?;
                let counts = mask.sum_keepdim(1)?.clamp(1e-9f32, f32::MAX)?;
                summed.broadcast_div(&counts)?
            }
        };
        let mut rows = pooled.to_vec2::<f32>()?;
        for row in &mut rows {
            l2_normalise(row);
        }
        Ok(rows)
    }
}

fn candle_encoder(
    files: &ModelFiles,
    config: &Config,
    device: &Device,
) -> Result<Encoder, EmbedError> {
    let vb = bert_prefix(mmap_weights(&files.weights, device)?);
    let model = BertModel::load(vb, config).map_err(|e| EmbedError::bad(&files.weights, e))?;
    Ok(Encoder::Candle(Box::new(model)))
}

fn onnx_encoder(dir: &Path, opts: &EmbedOptions, hidden: usize) -> Result<Encoder, EmbedError> {
    let lib = opts
        .onnxruntime_lib
        .as_deref()
        .ok_or_else(|| EmbedError::InvalidOption("no ONNX Runtime library configured".into()))?;
    let bert = OnnxBert::load(&opts.precision.onnx_file(dir), lib, hidden)?;
    Ok(Encoder::Onnx {
        bert: Box::new(bert),
        precision: opts.precision,
    })
}

/// One vector per row of `hidden` (`[rows, width, dim]`): the mean of the unmasked positions'
/// states, or the first position's.
fn pool(hidden: &[f32], batch: &PaddedBatch, dim: usize, pooling: Pooling) -> Vec<Vec<f32>> {
    (0..batch.rows)
        .map(|r| {
            let row = &hidden[r * batch.width * dim..(r + 1) * batch.width * dim];
            match pooling {
                Pooling::Cls => row[..dim].to_vec(),
                Pooling::Mean => {
                    let mut sum = vec![0f32; dim];
                    let mut count = 0f32;
                    let mask = &batch.mask[r * batch.width..(r + 1) * batch.width];
                    for (state, _) in row.chunks_exact(dim).zip(mask).filter(|(_, &m)| m != 0) {
                        sum.iter_mut().zip(state).for_each(|(s, x)| *s += x);
                        count += 1.0;
                    }
                    let count = count.max(1e-9);
                    sum.iter_mut().for_each(|s| *s /= count);
                    sum
                }
            }
        })
        .collect()
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn l2_normalise(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 1e-12 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

// ----- helpers shared with the cross-encoder -----

/// The three files every BERT folder needs, checked to exist.
pub(crate) struct ModelFiles {
    pub config: PathBuf,
    pub tokenizer: PathBuf,
    pub weights: PathBuf,
}

impl ModelFiles {
    pub(crate) fn in_dir(dir: &Path) -> Result<ModelFiles, EmbedError> {
        let files = ModelFiles {
            config: dir.join("config.json"),
            tokenizer: dir.join("tokenizer.json"),
            weights: dir.join("model.safetensors"),
        };
        for path in [&files.config, &files.tokenizer, &files.weights] {
            if !path.is_file() {
                return Err(EmbedError::MissingFile { path: path.clone() });
            }
        }
        Ok(files)
    }
}

pub(crate) fn read_config(path: &Path) -> Result<Config, EmbedError> {
    let text = std::fs::read_to_string(path).map_err(|e| EmbedError::bad(path, e))?;
    let config: Config = serde_json::from_str(&text).map_err(|e| EmbedError::bad(path, e))?;
    if config.num_attention_heads == 0
        || !config
            .hidden_size
            .is_multiple_of(config.num_attention_heads)
    {
        return Err(EmbedError::bad(
            path,
            "hidden_size is not a multiple of num_attention_heads",
        ));
    }
    Ok(config)
}

pub(crate) fn read_tokenizer(path: &Path) -> Result<Tokenizer, EmbedError> {
    let mut tokenizer = Tokenizer::from_file(path).map_err(|e| EmbedError::bad(path, e))?;
    // Batches are padded by hand to their own longest member; tokenizer.json often pads to a
    // fixed length (128 for MiniLM), which would waste most of the compute. Its truncation (also
    // 128 for MiniLM) is replaced by `truncating`, from the configured `max_tokens`.
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(None)
        .map_err(|e| EmbedError::bad(path, e))?;
    Ok(tokenizer)
}

/// `tokenizer` truncating every input (or pair, longest first) to `max_len` tokens.
pub(crate) fn truncating(
    mut tokenizer: Tokenizer,
    max_len: usize,
    path: &Path,
) -> Result<Tokenizer, EmbedError> {
    tokenizer
        .with_truncation(Some(TruncationParams {
            direction: TruncationDirection::Right,
            max_length: max_len,
            strategy: TruncationStrategy::LongestFirst,
            stride: 0,
        }))
        .map_err(|e| EmbedError::bad(path, e))?;
    Ok(tokenizer)
}

/// `max_tokens` capped at what the model's position embeddings allow.
pub(crate) fn effective_max_len(max_tokens: usize, config: &Config) -> Result<usize, EmbedError> {
    if max_tokens < MIN_TOKENS {
        return Err(EmbedError::InvalidOption(format!(
            "max_tokens is {max_tokens}; it must be at least {MIN_TOKENS}"
        )));
    }
    Ok(max_tokens.min(config.max_position_embeddings))
}

pub(crate) fn pad_id(config: &Config) -> u32 {
    // The id only fills masked positions; it just has to index the embedding table.
    u32::try_from(config.pad_token_id)
        .ok()
        .filter(|&id| (id as usize) < config.vocab_size)
        .unwrap_or(0)
}

/// Memory-maps the weights as f32 (f16/bf16 checkpoints are converted).
pub(crate) fn mmap_weights(
    path: &Path,
    device: &Device,
) -> Result<VarBuilder<'static>, EmbedError> {
    // SAFETY: the file is mapped read-only; fathom never writes model files, and the mapping is
    // only invalid if another process truncates the file while it is in use.
    unsafe { VarBuilder::from_mmaped_safetensors(&[path], DType::F32, device) }
        .map_err(|e| EmbedError::bad(path, e))
}

/// The encoder's weights sit under `bert.` in `BertFor…` checkpoints and at the root in
/// sentence-transformers ones.
pub(crate) fn bert_prefix(vb: VarBuilder<'static>) -> VarBuilder<'static> {
    if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
        vb.pp("bert")
    } else {
        vb
    }
}

pub(crate) fn encode_all<'s>(
    tokenizer: &Tokenizer,
    inputs: Vec<EncodeInput<'s>>,
) -> Result<Vec<Encoding>, EmbedError> {
    tokenizer
        .encode_batch_fast(inputs, true)
        .map_err(|e| EmbedError::Tokenizer(e.to_string()))
}

/// Indices grouped into batches of at most `batch_size`, longest first, so each batch holds
/// similar lengths and is padded little.
pub(crate) fn length_sorted_batches(lens: &[usize], batch_size: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lens.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(lens[i]));
    order
        .chunks(batch_size.max(1))
        .map(<[usize]>::to_vec)
        .collect()
}

/// Token ids, token type ids and attention mask of a batch, right-padded to its longest member.
pub(crate) struct BatchTensors {
    pub ids: Tensor,
    pub type_ids: Tensor,
    pub mask: Tensor,
}

impl BatchTensors {
    pub(crate) fn new(
        batch: &[&Encoding],
        pad_id: u32,
        device: &Device,
    ) -> Result<BatchTensors, EmbedError> {
        let p = PaddedBatch::new(batch, pad_id);
        // Ids came from u32 token ids; candle's BERT takes them as u32.
        let narrow = |v: &[i64]| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
        let shape = (p.rows, p.width);
        Ok(BatchTensors {
            ids: Tensor::from_vec(narrow(&p.ids), shape, device)?,
            type_ids: Tensor::from_vec(narrow(&p.type_ids), shape, device)?,
            mask: Tensor::from_vec(narrow(&p.mask), shape, device)?,
        })
    }
}

impl PaddedBatch {
    /// The batch right-padded with `pad_id` to its longest member (at least one column).
    pub(crate) fn new(batch: &[&Encoding], pad_id: u32) -> PaddedBatch {
        let width = batch.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let rows = batch.len();
        let mut p = PaddedBatch {
            rows,
            width,
            ids: vec![i64::from(pad_id); rows * width],
            type_ids: vec![0; rows * width],
            mask: vec![0; rows * width],
        };
        for (row, enc) in batch.iter().enumerate() {
            let start = row * width;
            let widen = |dst: &mut [i64], src: &[u32]| {
                dst.iter_mut()
                    .zip(src)
                    .for_each(|(d, &s)| *d = i64::from(s));
            };
            widen(&mut p.ids[start..start + enc.len()], enc.get_ids());
            widen(
                &mut p.type_ids[start..start + enc.len()],
                enc.get_type_ids(),
            );
            widen(
                &mut p.mask[start..start + enc.len()],
                enc.get_attention_mask(),
            );
        }
        p
    }
}

pub(crate) fn dir_name(dir: &Path) -> String {
    let named = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    named(dir)
        .or_else(|| dir.canonicalize().ok().and_then(|p| named(&p)))
        .unwrap_or_else(|| dir.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::cross_encoder::tiny;

    #[test]
    fn pooling_config_picks_cls() {
        let json = r#"{"word_embedding_dimension": 16, "pooling_mode_cls_token": true,
            "pooling_mode_mean_tokens": false, "pooling_mode_max_tokens": false,
            "pooling_mode_mean_sqrt_len_tokens": false}"#;
        assert_eq!(Pooling::from_config_json(json), Ok(Pooling::Cls));
    }

    #[test]
    fn pooling_config_picks_mean() {
        let json = r#"{"pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true}"#;
        assert_eq!(Pooling::from_config_json(json), Ok(Pooling::Mean));
    }

    #[test]
    fn pooling_config_rejects_unsupported_modes() {
        let max = r#"{"pooling_mode_max_tokens": true}"#;
        assert!(Pooling::from_config_json(max)
            .unwrap_err()
            .contains("pooling_mode_max_tokens"));
        let both = r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": true}"#;
        assert!(Pooling::from_config_json(both).is_err());
        assert!(Pooling::from_config_json("{}").is_err());
        assert!(Pooling::from_config_json("not json").is_err());
    }

    #[test]
    fn batches_are_length_sorted_and_cover_every_index() {
        let lens = [3, 9, 1, 7, 5];
        let batches = length_sorted_batches(&lens, 2);
        assert_eq!(batches, vec![vec![1, 3], vec![4, 0], vec![2]]);
        assert_eq!(length_sorted_batches(&lens, 0).len(), 5);
    }

    #[test]
    fn pooling_of_runtime_output_skips_padding_and_takes_cls_from_position_0() {
        // Two rows of width 3, dim 2: the second row has one padded position holding garbage.
        let batch = PaddedBatch {
            rows: 2,
            width: 3,
            ids: vec![1, 2, 3, 1, 2, 0],
            type_ids: vec![0; 6],
            mask: vec![1, 1, 1, 1, 1, 0],
        };
        let hidden = [
            1.0, 2.0, 3.0, 4.0, 5.0, 6.0, // row 0
            2.0, 0.0, 4.0, 2.0, 99.0, -99.0, // row 1, last position padded
        ];
        let mean = pool(&hidden, &batch, 2, Pooling::Mean);
        assert_eq!(mean, vec![vec![3.0, 4.0], vec![3.0, 1.0]]);
        let cls = pool(&hidden, &batch, 2, Pooling::Cls);
        assert_eq!(cls, vec![vec![1.0, 2.0], vec![2.0, 0.0]]);
    }

    #[test]
    fn padded_batch_right_pads_with_the_pad_id() {
        let (_d, e) = tiny_embedder(None);
        let a = e.tokenizer.encode_fast("rates rose", true).expect("encode");
        let b = e.tokenizer.encode_fast("rate", true).expect("encode");
        let p = PaddedBatch::new(&[&a, &b], 7);
        assert_eq!((p.rows, p.width), (2, a.len()));
        assert!(b.len() < a.len());
        let row1 = &p.ids[p.width..];
        assert!(row1[b.len()..].iter().all(|&id| id == 7));
        assert_eq!(p.mask[p.width..].iter().sum::<i64>(), b.len() as i64);
        assert_eq!(PaddedBatch::new(&[], 0).width, 1);
    }

    #[test]
    fn l2_normalise_gives_unit_length_and_keeps_zero() {
        let mut v = vec![3.0, 4.0];
        l2_normalise(&mut v);
        assert_eq!(v, vec![0.6, 0.8]);
        let mut z = vec![0.0; 3];
        l2_normalise(&mut z);
        assert_eq!(z, vec![0.0; 3]);
    }

    fn tiny_embedder(pooling_json: Option<&str>) -> (tempfile::TempDir, Embedder) {
        let dir = tempfile::tempdir().expect("tempdir");
        tiny::write_model(
            dir.path(),
            &tiny::TinyModel {
                bert_prefix: false,
                ..tiny::TinyModel::default()
            },
        );
        if let Some(json) = pooling_json {
            std::fs::create_dir_all(dir.path().join("1_Pooling")).expect("mkdir");
            std::fs::write(dir.path().join("1_Pooling/config.json"), json).expect("write pooling");
        }
        let e = Embedder::load(dir.path(), EmbedOptions::default()).expect("load tiny embedder");
        (dir, e)
    }

    #[test]
    fn cls_pooling_is_read_from_the_pooling_config() {
        let (_d, cls) = tiny_embedder(Some(
            r#"{"pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}"#,
        ));
        let (_d2, mean) = tiny_embedder(None);
        assert_eq!(cls.pooling(), Pooling::Cls);
        assert_eq!(mean.pooling(), Pooling::Mean);
        assert!(cls.model_id().contains(":cls:"), "{}", cls.model_id());
        assert!(mean.model_id().contains(":mean:"), "{}", mean.model_id());
        assert_eq!(cls.dim(), tiny::HIDDEN);
        let text = "the fed raised the rate";
        let a = cls.embed_query(text).expect("embed");
        let b = mean.embed_query(text).expect("embed");
        assert!((a.iter().map(|x| x * x).sum::<f32>() - 1.0).abs() < 1e-5);
        // Same weights, different pooling: the vectors must differ.
        let dist: f32 = a.iter().zip(&b).map(|(x, y)| (x - y).abs()).sum();
        assert!(dist > 1e-3, "cls and mean pooling gave the same vector");
    }

    #[test]
    fn cls_pooling_equals_the_first_token_state() {
        let (_d, cls) = tiny_embedder(Some(r#"{"pooling_mode_cls_token": true}"#));
        let enc = cls
            .tokenizer
            .encode_fast("rates rose", true)
            .expect("encode");
        let inputs = BatchTensors::new(&[&enc], cls.pad_id, &cls.device).expect("tensors");
        let Encoder::Candle(model) = &cls.encoder else {
            panic!("the default options load candle");
        };
        let hidden = model
            .forward(&inputs.ids, &inputs.type_ids, Some(&inputs.mask))
            .expect("forward");
        let mut first = hidden
            .get(0)
            .and_then(|h| h.get(0))
            .and_then(|h| h.to_vec1::<f32>())
            .expect("cls row");
        l2_normalise(&mut first);
        let got = cls.embed_query("rates rose").expect("embed");
        for (x, y) in got.iter().zip(&first) {
            assert!((x - y).abs() < 1e-6);
        }
    }

    #[test]
    fn bad_pooling_config_names_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        tiny::write_model(dir.path(), &tiny::TinyModel::default());
        std::fs::create_dir_all(dir.path().join("1_Pooling")).expect("mkdir");
        std::fs::write(
            dir.path().join("1_Pooling/config.json"),
            r#"{"pooling_mode_max_tokens": true}"#,
        )
        .expect("write");
        let err = Embedder::load(dir.path(), EmbedOptions::default()).unwrap_err();
        assert!(err.to_string().contains("1_Pooling"), "{err}");
    }

    #[test]
    fn too_small_max_tokens_is_rejected() {
        let dir = tempfile::tempdir().expect("tempdir");
        tiny::write_model(dir.path(), &tiny::TinyModel::default());
        let opts = EmbedOptions {
            max_tokens: 2,
            ..EmbedOptions::default()
        };
        assert!(matches!(
            Embedder::load(dir.path(), opts),
            Err(EmbedError::InvalidOption(_))
        ));
    }

    #[test]
    fn truncation_is_capped_by_position_embeddings() {
        let (_d, e) = tiny_embedder(None);
        let long = "rate ".repeat(200);
        assert_eq!(e.count_tokens(&long), 202);
        let v = e
            .embed_documents(&[long.as_str()])
            .expect("embed long text");
        assert_eq!(v[0].len(), tiny::HIDDEN);
        assert!(
            e.model_id().ends_with(&format!(":{}", tiny::MAX_POSITIONS)),
            "{}",
            e.model_id()
        );
    }
}
