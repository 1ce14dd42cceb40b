//! A BERT encoder run by ONNX Runtime: the graph `scripts/build_onnx_model.py` writes from the
//! safetensors weights (fused attention and layer norms; fp32 or int8 weights), executed by the
//! `libonnxruntime` shared library that `make model` installs from PyPI's `onnxruntime` wheel.
//!
//! The library is loaded at run time (never linked), once per process: ONNX Runtime allows one
//! environment per process, so the first library that loads serves every later session.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::environment::Environment;
use ort::session::builder::GraphOptimizationLevel;
use ort::session::Session;
use ort::value::TensorRef;

use super::embed_error::EmbedError;

/// Token ids, token type ids and attention mask of a batch, right-padded to its longest member,
/// row-major `[rows, width]`.
pub(crate) struct PaddedBatch {
    pub rows: usize,
    pub width: usize,
    pub ids: Vec<i64>,
    pub type_ids: Vec<i64>,
    pub mask: Vec<i64>,
}

/// The process's ONNX Runtime: the library it was loaded from and its environment.
static RUNTIME: Mutex<Option<(PathBuf, Environment)>> = Mutex::new(None);

/// Loads `lib` (first call) and returns the process's environment. A later call naming another
/// library gets an error instead of silently running a different version.
fn environment(lib: &Path) -> Result<Environment, EmbedError> {
    let mut slot = RUNTIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((loaded, env)) = slot.as_ref() {
        if loaded == lib {
            return Ok(env.clone());
        }
        return Err(EmbedError::Runtime {
            path: lib.to_path_buf(),
            reason: format!(
                "ONNX Runtime is already loaded from {} in this process",
                loaded.display()
            ),
        });
    }
    if !lib.is_file() {
        return Err(EmbedError::MissingFile {
            path: lib.to_path_buf(),
        });
    }
    let runtime_error = |reason: String| EmbedError::Runtime {
        path: lib.to_path_buf(),
        reason,
    };
    let env = ort::init_from(lib)
        .map_err(|e| runtime_error(e.to_string()))?
        .with_name("fathom")
        .build()
        .map_err(|e| runtime_error(e.to_string()))?;
    *slot = Some((lib.to_path_buf(), env.clone()));
    Ok(env)
}

/// Threads ONNX Runtime computes with: every core the process may use.
fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub(crate) struct OnnxBert {
    /// `Session::run` needs `&mut`; one batch runs at a time and uses every core itself.
    session: Mutex<Session>,
    hidden: usize,
    model: PathBuf,
}

impl OnnxBert {
    /// Opens `model` (an encoder graph with `hidden`-wide output) on the runtime in `lib`.
    pub(crate) fn load(model: &Path, lib: &Path, hidden: usize) -> Result<OnnxBert, EmbedError> {
        if !model.is_file() {
            return Err(EmbedError::MissingFile {
                path: model.to_path_buf(),
            });
        }
        let env = environment(lib)?;
        let bad = |e: String| EmbedError::bad(model, e);
        let session = Session::builder(&env)
            .map_err(|e| bad(e.to_string()))?
            .with_optimization_level(GraphOptimizationLevel::All)
            .map_err(|e| bad(e.to_string()))?
            .with_intra_threads(threads())
            .map_err(|e| bad(e.to_string()))?
            // Spinning worker threads wait for work by burning a core: on a machine shared with
            // other jobs (or a TUI idling between queries) that cost 2-5x in query latency here.
            .with_intra_op_spinning(false)
            .map_err(|e| bad(e.to_string()))?
            .commit_from_file(model)
            .map_err(|e| bad(e.to_string()))?;
        let names: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
        for want in ["input_ids", "attention_mask", "token_type_ids"] {
            if !names.contains(&want) {
                return Err(bad(format!(
                    "the graph has no input {want:?} (inputs: {names:?})"
                )));
            }
        }
        if !session
            .outputs()
            .iter()
            .any(|o| o.name() == "last_hidden_state")
        {
            return Err(bad("the graph has no output \"last_hidden_state\"".into()));
        }
        Ok(OnnxBert {
            session: Mutex::new(session),
            hidden,
            model: model.to_path_buf(),
        })
    }

    /// The encoder's last hidden states, row-major `[rows, width, hidden]`.
    pub(crate) fn last_hidden(&self, batch: &PaddedBatch) -> Result<Vec<f32>, EmbedError> {
        let failed = |e: ort::Error| EmbedError::OnnxInference(e.to_string());
        let shape = [batch.rows, batch.width];
        let ids = TensorRef::from_array_view((shape, batch.ids.as_slice())).map_err(failed)?;
        let mask = TensorRef::from_array_view((shape, batch.mask.as_slice())).map_err(failed)?;
        let types =
            TensorRef::from_array_view((shape, batch.type_ids.as_slice())).map_err(failed)?;
        let mut session = self
            .session
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let outputs = session
            .run(ort::inputs![
                "input_ids" => ids,
                "attention_mask" => mask,
                "token_type_ids" => types,
            ])
            .map_err(failed)?;
        let (out_shape, data) = outputs["last_hidden_state"]
            .try_extract_tensor::<f32>()
            .map_err(failed)?;
        let want = batch.rows * batch.width * self.hidden;
        if data.len() != want {
            return Err(EmbedError::OnnxInference(format!(
                "{} returned shape {out_shape:?}, expected [{}, {}, {}]",
                self.model.display(),
                batch.rows,
                batch.width,
                self.hidden
            )));
        }
        Ok(data.to_vec())
    }
}
