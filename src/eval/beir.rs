//! Retrieval evaluation on a BEIR-layout dataset: `corpus.jsonl`, `queries.jsonl`, `qrels/*.tsv`.
//!
//! The corpus is written out as one Markdown file per document (`# title`, then the text) and
//! indexed by the ordinary pipeline, so the figures measure exactly what `fathom search` does.

use super::metrics::{dedup_documents, mrr_at, ndcg_at, recall_at, Qrels};
use super::{read_jsonl, EvalError};
use crate::index::{Retriever, SearchMode, SearchRequest};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Debug, Clone)]
pub struct BeirDoc {
    pub id: String,
    pub title: String,
    pub text: String,
}

#[derive(Debug, Clone)]
pub struct BeirData {
    pub corpus: Vec<BeirDoc>,
    pub queries: BTreeMap<String, String>,
    pub qrels: BTreeMap<String, Qrels>,
}

#[derive(Deserialize)]
struct CorpusLine {
    #[serde(rename = "_id")]
    id: String,
    #[serde(default)]
    title: String,
    text: String,
}

#[derive(Deserialize)]
struct QueryLine {
    #[serde(rename = "_id")]
    id: String,
    text: String,
}

/// Reads a BEIR dataset. Without `qrels`, uses `qrels/test.tsv` if present, else the only
/// `.tsv` in `qrels/`.
pub fn load(dir: &Path, qrels: Option<&Path>) -> Result<BeirData, EvalError> {
    let corpus = read_jsonl::<CorpusLine>(&dir.join("corpus.jsonl"))?
        .into_iter()
        .map(|c| BeirDoc {
            id: c.id,
            title: c.title,
            text: c.text,
        })
        .collect();
    let queries = read_jsonl::<QueryLine>(&dir.join("queries.jsonl"))?
        .into_iter()
        .map(|q| (q.id, q.text))
        .collect();
    let qrels_path = match qrels {
        Some(p) => p.to_path_buf(),
        None => default_qrels(dir)?,
    };
    let qrels = read_qrels(&qrels_path)?;
    Ok(BeirData {
        corpus,
        queries,
        qrels,
    })
}

fn default_qrels(dir: &Path) -> Result<PathBuf, EvalError> {
    let qdir = dir.join("qrels");
    let test = qdir.join("test.tsv");
    if test.exists() {
        return Ok(test);
    }
    let tsvs: Vec<PathBuf> = std::fs::read_dir(&qdir)
        .map_err(|e| EvalError::io(&qdir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "tsv"))
        .collect();
    match tsvs.as_slice() {
        [one] => Ok(one.clone()),
        _ => Err(EvalError::Input(format!(
            "{}: pick a qrels file with --qrels",
            qdir.display()
        ))),
    }
}

/// `query-id <tab> corpus-id <tab> score`, with an optional header line.
pub fn read_qrels(path: &Path) -> Result<BTreeMap<String, Qrels>, EvalError> {
    let text = std::fs::read_to_string(path).map_err(|e| EvalError::io(path, e))?;
    let mut out: BTreeMap<String, Qrels> = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            continue;
        }
        let Ok(grade) = cols[2].trim().parse::<u32>() else {
            if i == 0 {
                continue; // header
            }
            return Err(EvalError::Input(format!(
                "{}:{}: bad score {:?}",
                path.display(),
                i + 1,
                cols[2]
            )));
        };
        out.entry(cols[0].to_string())
            .or_default()
            .insert(cols[1].to_string(), grade);
    }
    Ok(out)
}

/// File stem for a document id: ids become file names, so anything but `[A-Za-z0-9_-]` is escaped.
pub fn file_stem(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_string()
            } else {
                format!("~{:x}", c as u32)
            }
        })
        .collect()
}

/// Writes the corpus as Markdown files into `dir`, leaving files whose content is unchanged
/// untouched (so re-running reuses the index). Returns the map from file path to document id.
pub fn write_corpus(data: &BeirData, dir: &Path) -> Result<HashMap<String, String>, EvalError> {
    std::fs::create_dir_all(dir).map_err(|e| EvalError::io(dir, e))?;
    let mut by_path = HashMap::with_capacity(data.corpus.len());
    for doc in &data.corpus {
        let name = format!("{}.md", file_stem(&doc.id));
        let body = if doc.title.trim().is_empty() {
            format!("{}\n", doc.text)
        } else {
            format!("# {}\n\n{}\n", doc.title.trim(), doc.text)
        };
        let path = dir.join(&name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(body.as_str()) {
            std::fs::write(&path, body).map_err(|e| EvalError::io(&path, e))?;
        }
        by_path.insert(name, doc.id.clone());
    }
    Ok(by_path)
}

#[derive(Debug, Clone, Serialize)]
pub struct ModeScores {
    pub mode: String,
    pub queries: usize,
    pub ndcg_at_10: f64,
    pub recall_at_100: f64,
    pub mrr_at_10: f64,
    pub ms_per_query: f64,
}

/// Chunks retrieved per query: enough that 100 distinct documents usually remain after dedup.
const CHUNK_DEPTH: usize = 200;

/// Runs every judged query in every mode. `doc_of` maps an indexed document path to its id.
pub fn evaluate(
    retriever: &dyn Retriever,
    data: &BeirData,
    doc_of: &HashMap<String, String>,
    k: usize,
    modes: &[SearchMode],
) -> Result<Vec<ModeScores>, EvalError> {
    let judged: Vec<(&String, &String, &Qrels)> = data
        .qrels
        .iter()
        .filter_map(|(qid, qr)| data.queries.get(qid).map(|text| (qid, text, qr)))
        .collect();
    let mut out = Vec::new();
    for &mode in modes {
        let (mut ndcg, mut recall, mut mrr, mut ms) = (0.0, 0.0, 0.0, 0.0);
        for (_, text, qr) in &judged {
            let req = SearchRequest {
                query: (*text).clone(),
                years: Vec::new(),
                k: CHUNK_DEPTH,
            };
            let t = Instant::now();
            let resp = retriever.search(&req, mode)?;
            ms += t.elapsed().as_secs_f64() * 1000.0;
            let ranked = dedup_documents(resp.hits.iter().map(|h| {
                doc_of
                    .get(&h.document)
                    .cloned()
                    .unwrap_or_else(|| h.document.clone())
            }));
            ndcg += ndcg_at(&ranked, qr, k);
            recall += recall_at(&ranked, qr, 100);
            mrr += mrr_at(&ranked, qr, 10);
        }
        let n = judged.len().max(1) as f64;
        out.push(ModeScores {
            mode: mode.label().to_string(),
            queries: judged.len(),
            ndcg_at_10: ndcg / n,
            recall_at_100: recall / n,
            mrr_at_10: mrr / n,
            ms_per_query: ms / n,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qrels_skip_the_header_and_group_by_query() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("q.tsv");
        std::fs::write(
            &p,
            "query-id\tcorpus-id\tscore\n1\t10\t1\n1\t11\t2\n2\t10\t1\n",
        )
        .unwrap();
        let q = read_qrels(&p).unwrap();
        assert_eq!(q.len(), 2);
        assert_eq!(q["1"]["11"], 2);
        std::fs::write(&p, "1\t10\t1\n1\t11\tx\n").unwrap();
        assert!(read_qrels(&p).unwrap_err().to_string().contains(":2:"));
    }

    #[test]
    fn ids_become_safe_file_names() {
        assert_eq!(file_stem("4983"), "4983");
        assert_eq!(file_stem("a/b c"), "a~2fb~20c");
    }
}
