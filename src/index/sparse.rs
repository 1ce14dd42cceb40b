//! The BM25 side of the index: a tantivy index over chunk texts, with the year as a fast field.

use super::error::IndexError;
use super::fuse::Ranked;
use crate::corpus::Chunk;
use std::path::Path;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, ConstScoreQuery, Occur, Query, TermQuery, TermSetQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, Value,
    STORED, STRING,
};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

/// English analysis as BM25 baselines do it: lower-case, drop stop words, Porter-style stemming.
const ANALYZER: &str = "fathom_en";
const WRITER_HEAP_BYTES: usize = 64 * 1024 * 1024;

#[derive(Clone, Copy)]
struct Fields {
    chunk_id: Field,
    document: Field,
    text: Field,
    year: Field,
}

pub struct SparseIndex {
    dir: std::path::PathBuf,
    index: Index,
    reader: IndexReader,
    fields: Fields,
    analyzer: TextAnalyzer,
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let chunk_id = b.add_text_field("chunk_id", STRING | STORED);
    let document = b.add_text_field("document", STRING);
    let text_opts = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ANALYZER)
            .set_index_option(IndexRecordOption::WithFreqs),
    );
    let text = b.add_text_field("text", text_opts);
    let year = b.add_i64_field("year", NumericOptions::default().set_indexed().set_fast());
    (
        b.build(),
        Fields {
            chunk_id,
            document,
            text,
            year,
        },
    )
}

fn analyzer() -> TextAnalyzer {
    let mut builder = TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .dynamic();
    if let Some(stop) = StopWordFilter::new(Language::English) {
        builder = builder.filter_dynamic(stop);
    }
    builder
        .filter_dynamic(Stemmer::new(Language::English))
        .build()
}

impl SparseIndex {
    /// Creates an empty index in `dir` (which must exist and be empty).
    pub fn create(dir: &Path) -> Result<Self, IndexError> {
        let (schema, fields) = schema();
        let index = Index::create_in_dir(dir, schema)?;
        Self::wrap(dir, index, fields)
    }

    pub fn open(dir: &Path) -> Result<Self, IndexError> {
        let index = Index::open_in_dir(dir)
            .map_err(|e| IndexError::corrupt(dir, format!("BM25 index: {e}")))?;
        let (expected, fields) = schema();
        if index.schema() != expected {
            return Err(IndexError::corrupt(
                dir,
                "BM25 index has an unexpected schema",
            ));
        }
        Self::wrap(dir, index, fields)
    }

    fn wrap(dir: &Path, index: Index, fields: Fields) -> Result<Self, IndexError> {
        index.tokenizers().register(ANALYZER, analyzer());
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(SparseIndex {
            dir: dir.to_path_buf(),
            index,
            reader,
            fields,
            analyzer: analyzer(),
        })
    }

    pub fn writer(&self) -> Result<SparseWriter, IndexError> {
        let writer = self.index.writer(WRITER_HEAP_BYTES)?;
        Ok(SparseWriter {
            writer,
            fields: self.fields,
        })
    }

    /// Makes committed changes visible to searches.
    pub fn reload(&self) -> Result<(), IndexError> {
        Ok(self.reader.reload()?)
    }

    pub fn num_chunks(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// The payload of the last commit: the id of the chunk table this BM25 index was built for.
    pub fn payload(&self) -> Result<Option<String>, IndexError> {
        let metas = self
            .index
            .load_metas()
            .map_err(|e| IndexError::corrupt(&self.dir, format!("BM25 index: {e}")))?;
        Ok(metas.payload)
    }

    /// Checks every file of the index against the checksum tantivy wrote in its footer.
    pub fn verify(&self) -> Result<(), IndexError> {
        let damaged = self
            .index
            .validate_checksum()
            .map_err(|e| IndexError::corrupt(&self.dir, format!("BM25 index: {e}")))?;
        if damaged.is_empty() {
            return Ok(());
        }
        let mut names: Vec<String> = damaged.iter().map(|p| p.display().to_string()).collect();
        names.sort();
        Err(IndexError::corrupt(
            &self.dir,
            format!("BM25 files fail their checksums: {}", names.join(", ")),
        ))
    }

    /// The query's terms after the index's own analysis (what BM25 actually matches on).
    pub fn analyze(&self, text: &str) -> Vec<String> {
        let mut analyzer = self.analyzer.clone();
        let mut stream = analyzer.token_stream(text);
        let mut terms = Vec::new();
        while let Some(tok) = stream.next() {
            if !terms.contains(&tok.text) {
                terms.push(tok.text.clone());
            }
        }
        terms
    }

    /// BM25 top-`limit` chunks for `query`, restricted to `years` when any are given.
    /// The query is analysed into terms and OR-ed, so user input never meets query syntax.
    pub fn search(
        &self,
        query: &str,
        years: &[i32],
        limit: usize,
    ) -> Result<Vec<Ranked>, IndexError> {
        let terms = self.analyze(query);
        if terms.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let should: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| {
                let term = Term::from_field_text(self.fields.text, t);
                let q: Box<dyn Query> =
                    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
                (Occur::Should, q)
            })
            .collect();
        let text_query: Box<dyn Query> = Box::new(BooleanQuery::new(should));
        let query: Box<dyn Query> = if years.is_empty() {
            text_query
        } else {
            // The filter must not add to BM25 scores, so it scores a constant 0.
            let year_terms = years
                .iter()
                .map(|y| Term::from_field_i64(self.fields.year, i64::from(*y)));
            let filter = ConstScoreQuery::new(Box::new(TermSetQuery::new(year_terms)), 0.0);
            Box::new(BooleanQuery::new(vec![
                (Occur::Must, text_query),
                (Occur::Must, Box::new(filter)),
            ]))
        };
        let searcher = self.reader.searcher();
        let top = searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?;
        let mut out = Vec::with_capacity(top.len());
        for (score, addr) in top {
            let doc: TantivyDocument = searcher.doc(addr)?;
            let chunk_id = doc
                .get_first(self.fields.chunk_id)
                .and_then(|v| v.as_str())
                .ok_or_else(|| IndexError::corrupt(&self.dir, "BM25 document without chunk_id"))?;
            out.push(Ranked {
                chunk_id: chunk_id.to_string(),
                score,
            });
        }
        Ok(out)
    }
}

/// Adds and removes chunks; nothing is visible until `commit`.
pub struct SparseWriter {
    writer: IndexWriter,
    fields: Fields,
}

impl SparseWriter {
    pub fn add(&mut self, chunk: &Chunk) -> Result<(), IndexError> {
        let mut doc = TantivyDocument::default();
        doc.add_text(self.fields.chunk_id, &chunk.chunk_id);
        doc.add_text(self.fields.document, &chunk.document);
        // The section and the date are searchable context for the chunk's own words: people
        // ask "what happened in March 2020" of texts that never name their own date.
        let mut text = String::with_capacity(chunk.text.len() + 64);
        if let Some(date) = chunk.date {
            text.push_str(&format!("{} {date}\n", date.long_form()));
        }
        if let Some(section) = &chunk.section {
            text.push_str(section);
            text.push('\n');
        }
        text.push_str(&chunk.text);
        doc.add_text(self.fields.text, &text);
        if let Some(year) = chunk.year {
            doc.add_i64(self.fields.year, i64::from(year));
        }
        self.writer.add_document(doc)?;
        Ok(())
    }

    /// Removes every chunk of a document.
    pub fn delete_document(&mut self, document: &str) {
        self.writer
            .delete_term(Term::from_field_text(self.fields.document, document));
    }

    pub fn delete_all(&mut self) -> Result<(), IndexError> {
        self.writer.delete_all_documents()?;
        Ok(())
    }

    pub fn commit(mut self) -> Result<(), IndexError> {
        self.writer.commit()?;
        self.writer.wait_merging_threads()?;
        Ok(())
    }

    /// Commits with `payload` recorded in the commit (the id of the chunk table it matches),
    /// then waits for merges so the folder is final when this returns.
    pub fn commit_with_payload(mut self, payload: &str) -> Result<(), IndexError> {
        let mut prepared = self.writer.prepare_commit()?;
        prepared.set_payload(payload);
        prepared.commit()?;
        self.writer.wait_merging_threads()?;
        Ok(())
    }
}

/// Fills the empty folder `to` with the index in `from` without copying it: segment files are
/// written once and never changed, so they are hard-linked; the files tantivy rewrites on commit
/// (`meta.json`, `.managed.json`) are copied, so a commit in `to` never touches `from`.
pub fn link_index(from: &Path, to: &Path) -> Result<(), IndexError> {
    std::fs::create_dir_all(to).map_err(|e| IndexError::io(to, e))?;
    let entries = std::fs::read_dir(from).map_err(|e| IndexError::io(from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| IndexError::io(from, e))?;
        let name = entry.file_name();
        let name_str = name.to_string_lossy();
        let src = entry.path();
        let dst = to.join(&name);
        if name_str.ends_with(".lock") || !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        if name_str == "meta.json" || name_str == ".managed.json" {
            std::fs::copy(&src, &dst).map_err(|e| IndexError::io(&dst, e))?;
        } else {
            super::generation::link_or_copy(&src, &dst)?;
        }
    }
    Ok(())
}
