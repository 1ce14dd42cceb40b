//! The chunk table part: one JSON line per chunk in row order (row `i` of the vectors and of the
//! table are the same chunk), a footer line naming the table it belongs to, the checksum trailer.
//! It is written as the chunks stream out of the corpus, so a build never holds them all.

use super::error::IndexError;
use super::fsio::{check_trailer, hex, ChecksummedWriter, Written, TRAILER_LEN};
use super::generation::GenerationId;
use crate::corpus::Chunk;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

pub const FILE: &str = "chunks.jsonl";
const FORMAT: u32 = 3;
/// How the footer line starts (chunk rows start with `{"chunk_id"`).
const FOOTER_START: &[u8] = b"{\"fathom_chunk_table\"";

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
/// Streams the file line by line, so only the parsed chunks are ever in memory.
pub fn read(
    path: &Path,
    sha256: &str,
    table: GenerationId,
    count: usize,
) -> Result<Vec<Chunk>, IndexError> {
    let bad = |reason: String| IndexError::corrupt(path, format!("chunk table: {reason}"));
    let io = |e| IndexError::io(path, e);
    let file = std::fs::File::open(path).map_err(io)?;
    let len = file.metadata().map_err(io)?.len();
    let body_len = len
        .checked_sub(TRAILER_LEN as u64)
        .ok_or_else(|| bad(format!("{len} bytes, too short to be complete")))?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut body = (&mut reader).take(body_len);
    let mut hasher = Sha256::new();
    let mut chunks = Vec::with_capacity(count.min(1 << 22));
    let mut footer: Option<Footer> = None;
    // A damaged file usually fails to parse before its checksum can be checked: the first
    // problem is kept and reported only if the checksum passes, so damage reads as damage.
    let mut problem: Option<String> = None;
    let mut line = Vec::with_capacity(4096);
    loop {
        line.clear();
        if body.read_until(b'\n', &mut line).map_err(io)? == 0 {
            break;
        }
        hasher.update(&line);
        if problem.is_some() {
            continue;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if footer.is_some() {
            problem = Some("rows after the footer".into());
        } else if text.starts_with(FOOTER_START) {
            match serde_json::from_slice(text) {
                Ok(f) => footer = Some(f),
                Err(e) => problem = Some(format!("footer: {e}")),
            }
        } else if chunks.len() >= count {
            problem = Some(format!("more rows than the {count} the manifest lists"));
        } else {
            match serde_json::from_slice(text) {
                Ok(c) => chunks.push(c),
                Err(e) => problem = Some(format!("row {}: {e}", chunks.len())),
            }
        }
    }
    let mut trailer = Vec::with_capacity(TRAILER_LEN);
    reader.read_to_end(&mut trailer).map_err(io)?;
    check_trailer(&trailer, &hex(&hasher.finalize()), sha256).map_err(bad)?;
    if let Some(p) = problem {
        return Err(bad(p));
    }
    let footer = footer.ok_or_else(|| bad("no footer (the file was never finished)".into()))?;
    if footer.fathom_chunk_table != FORMAT {
        return Err(bad(format!("format {}", footer.fathom_chunk_table)));
    }
    if footer.table != table.to_string() {
        return Err(bad(format!(
            "belongs to table {}, the manifest names {table}",
            footer.table
        )));
    }
    if footer.count != count || chunks.len() != count {
        return Err(bad(format!(
            "{} rows, footer {}, the manifest lists {count}",
            chunks.len(),
            footer.count
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

        let bytes = std::fs::read(&path).unwrap();
        let mut flipped = bytes.clone();
        flipped[30] ^= 0x01;
        std::fs::write(&path, &flipped).unwrap();
        let err = read(&path, &part.written.sha256, table, 3).unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
        std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
        let err = read(&path, &part.written.sha256, table, 3).unwrap_err();
        assert!(err.to_string().contains("trailer"), "{err}");
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
