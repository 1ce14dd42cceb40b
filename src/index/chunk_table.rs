//! The chunk table part: one JSON line per chunk in row order (row `i` of the vectors and of the
//! table are the same chunk), a footer line naming the table it belongs to, the checksum trailer.
//! It is written as the chunks stream out of the corpus, so a build never holds them all.

use super::error::IndexError;
use super::fsio::{verify_trailer, ChecksummedWriter, Written};
use super::generation::GenerationId;
use crate::corpus::Chunk;
use serde::{Deserialize, Serialize};
use std::path::Path;

pub const FILE: &str = "chunks.jsonl";
const FORMAT: u32 = 3;

#[derive(Serialize, Deserialize)]
struct Footer {
    fathom_chunk_table: u32,
    table: String,
    count: usize,
}

/// The chunk table as the manifest records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TablePart {
    pub written: Written,
    pub count: usize,
}

pub struct ChunkTableWriter {
    out: ChecksummedWriter,
    table: GenerationId,
    count: usize,
    line: Vec<u8>,
}

impl ChunkTableWriter {
    pub fn create(gen_dir: &Path, table: GenerationId) -> Result<Self, IndexError> {
        Ok(ChunkTableWriter {
            out: ChecksummedWriter::create(&gen_dir.join(FILE))?,
            table,
            count: 0,
            line: Vec::with_capacity(4096),
        })
    }

    pub fn push(&mut self, chunk: &Chunk) -> Result<(), IndexError> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, chunk)
            .map_err(|e| IndexError::corrupt(FILE, format!("chunk {}: {e}", chunk.chunk_id)))?;
        self.line.push(b'\n');
        self.out.write(&self.line)?;
        self.count += 1;
        Ok(())
    }

    pub fn count(&self) -> usize {
        self.count
    }

    pub fn finish(mut self) -> Result<TablePart, IndexError> {
        let footer = Footer {
            fathom_chunk_table: FORMAT,
            table: self.table.to_string(),
            count: self.count,
        };
        let mut line = serde_json::to_vec(&footer)
            .map_err(|e| IndexError::corrupt(FILE, format!("footer: {e}")))?;
        line.push(b'\n');
        self.out.write(&line)?;
        Ok(TablePart {
            written: self.out.finish()?,
            count: self.count,
        })
    }
}

/// Reads and checks a chunk table: its checksum (and the manifest's), its table id, its count.
pub fn read(
    path: &Path,
    sha256: &str,
    table: GenerationId,
    count: usize,
) -> Result<Vec<Chunk>, IndexError> {
    let bytes = std::fs::read(path).map_err(|e| IndexError::io(path, e))?;
    let bad = |reason: String| IndexError::corrupt(path, format!("chunk table: {reason}"));
    let (body, _) = verify_trailer(&bytes, Some(sha256)).map_err(bad)?;
    let body = body.strip_suffix(b"\n").unwrap_or(body);
    let (rows, footer) = match body.iter().rposition(|&b| b == b'\n') {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (&body[..0], body),
    };
    let footer: Footer = serde_json::from_slice(footer).map_err(|e| bad(format!("footer: {e}")))?;
    if footer.fathom_chunk_table != FORMAT {
        return Err(bad(format!("format {}", footer.fathom_chunk_table)));
    }
    if footer.table != table.to_string() {
        return Err(bad(format!(
            "belongs to table {}, the manifest names {table}",
            footer.table
        )));
    }
    if footer.count != count {
        return Err(bad(format!(
            "{} chunks, the manifest lists {count}",
            footer.count
        )));
    }
    let mut chunks = Vec::with_capacity(count);
    if count > 0 {
        for (i, line) in rows.split(|&b| b == b'\n').enumerate() {
            let chunk: Chunk =
                serde_json::from_slice(line).map_err(|e| bad(format!("row {i}: {e}")))?;
            chunks.push(chunk);
        }
    }
    if chunks.len() != count {
        return Err(bad(format!(
            "{} rows, the footer says {count}",
            chunks.len()
        )));
    }
    Ok(chunks)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(i: usize) -> Chunk {
        Chunk {
            chunk_id: format!("c{i}"),
            document: "d.md".into(),
            title: "T".into(),
            date: None,
            year: Some(2020),
            section: None,
            text: format!("text {i}\nwith a newline"),
            byte_start: 0,
            byte_end: 5,
            ordinal: i as u32,
        }
    }

    #[test]
    fn round_trips_and_checks_its_table_and_count() {
        let dir = tempfile::tempdir().unwrap();
        let table = super::super::generation::next_id(dir.path(), None);
        let mut w = ChunkTableWriter::create(dir.path(), table).unwrap();
        for i in 0..3 {
            w.push(&chunk(i)).unwrap();
        }
        let part = w.finish().unwrap();
        let path = dir.path().join(FILE);
        let back = read(&path, &part.written.sha256, table, 3).unwrap();
        assert_eq!(back, (0..3).map(chunk).collect::<Vec<_>>());

        let other = super::super::generation::next_id(dir.path(), Some(table));
        let err = read(&path, &part.written.sha256, other, 3).unwrap_err();
        assert!(err.to_string().contains("belongs to table"), "{err}");
        assert!(read(&path, &part.written.sha256, table, 4).is_err());
    }

    #[test]
    fn an_empty_table_is_valid() {
        let dir = tempfile::tempdir().unwrap();
        let table = super::super::generation::next_id(dir.path(), None);
        let part = ChunkTableWriter::create(dir.path(), table)
            .unwrap()
            .finish()
            .unwrap();
        let back = read(&dir.path().join(FILE), &part.written.sha256, table, 0).unwrap();
        assert!(back.is_empty());
    }
}
