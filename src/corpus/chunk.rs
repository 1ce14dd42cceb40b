//! Splitting documents into chunks: by headings, then paragraphs, packed up to a target size.
//!
//! Rules: a chunk never crosses a heading; its section is the nearest heading above it (for a
//! document whose only heading is its title, that is the title); paragraphs are packed until the
//! next would pass `target_words`; a paragraph over `max_words` is split at sentence ends, and a
//! sentence over `max_words` at word boundaries. A chunk's text is exactly
//! `doc.text[byte_start..byte_end]`.

use super::document::heading;
use super::{Chunk, Document};
use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkOptions {
    /// Target words per chunk; chunks never exceed `max_words`.
    pub target_words: usize,
    pub max_words: usize,
}

impl Default for ChunkOptions {
    fn default() -> Self {
        ChunkOptions {
            target_words: 160,
            max_words: 200,
        }
    }
}

/// A byte range of the document text with its word count.
#[derive(Debug, Clone, Copy)]
struct Piece {
    start: usize,
    end: usize,
    words: usize,
}

pub fn chunk_document(doc: &Document, opts: &ChunkOptions) -> Vec<Chunk> {
    let max = opts.max_words.max(1);
    let target = opts.target_words.clamp(1, max);
    let mut chunks = Vec::new();
    for (section, paragraphs) in sections(&doc.text) {
        let pieces: Vec<Piece> = paragraphs
            .into_iter()
            .flat_map(|p| split_long(&doc.text, p, max))
            .collect();
        for group in pack(&pieces, target, max) {
            let (start, end) = (group.0, group.1);
            let text = &doc.text[start..end];
            chunks.push(Chunk {
                chunk_id: chunk_id(&doc.path, start, text),
                document: doc.path.clone(),
                title: doc.title.clone(),
                date: doc.date,
                year: doc.year,
                section: section.clone(),
                text: text.to_string(),
                byte_start: start,
                byte_end: end,
                ordinal: chunks.len() as u32,
            });
        }
    }
    chunks
}

fn chunk_id(path: &str, start: usize, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(path.as_bytes());
    h.update([0]);
    h.update(start.to_le_bytes());
    h.update([0]);
    h.update(text.as_bytes());
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn words(s: &str) -> usize {
    s.split_whitespace().count()
}

/// Sections of the text: the nearest heading and the paragraphs under it (trimmed byte ranges).
fn sections(text: &str) -> Vec<(Option<String>, Vec<Piece>)> {
    let mut out: Vec<(Option<String>, Vec<Piece>)> = vec![(None, Vec::new())];
    let mut para: Option<(usize, usize)> = None;
    let flush = |para: &mut Option<(usize, usize)>, out: &mut Vec<(Option<String>, Vec<Piece>)>| {
        if let Some((s, e)) = para.take() {
            let w = words(&text[s..e]);
            if w > 0 {
                if let Some(last) = out.last_mut() {
                    last.1.push(Piece {
                        start: s,
                        end: e,
                        words: w,
                    });
                }
            }
        }
    };
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches('\n');
        if let Some((_, title)) = heading(content) {
            flush(&mut para, &mut out);
            out.push((
                Some(title.to_string()).filter(|t| !t.is_empty()),
                Vec::new(),
            ));
        } else if content.trim().is_empty() {
            flush(&mut para, &mut out);
        } else {
            let lead = content.len() - content.trim_start().len();
            let s = start + lead;
            let e = start + content.trim_end().len();
            para = Some(match para {
                Some((ps, _)) => (ps, e),
                None => (s, e),
            });
        }
    }
    flush(&mut para, &mut out);
    out.retain(|(_, p)| !p.is_empty());
    out
}

/// Splits a piece longer than `max` words at sentence ends, then at word boundaries.
fn split_long(text: &str, p: Piece, max: usize) -> Vec<Piece> {
    if p.words <= max {
        return vec![p];
    }
    let mut out = Vec::new();
    for s in sentence_ranges(text, p.start, p.end) {
        if s.words <= max {
            out.push(s);
        } else {
            out.extend(word_windows(text, s, max));
        }
    }
    // Re-pack sentences so pieces are as large as allowed.
    pack(&out, max, max)
        .into_iter()
        .map(|(s, e)| Piece {
            start: s,
            end: e,
            words: words(&text[s..e]),
        })
        .collect()
}

fn sentence_ranges(text: &str, start: usize, end: usize) -> Vec<Piece> {
    let slice = &text[start..end];
    let mut out = Vec::new();
    let mut s = 0;
    let bytes = slice.as_bytes();
    for (i, ch) in slice.char_indices() {
        let e = i + ch.len_utf8();
        if matches!(ch, '.' | '?' | '!') && bytes.get(e).is_some_and(|b| b.is_ascii_whitespace()) {
            push_trimmed(&mut out, text, start + s, start + e);
            s = e;
        }
    }
    push_trimmed(&mut out, text, start + s, end);
    out
}

fn push_trimmed(out: &mut Vec<Piece>, text: &str, s: usize, e: usize) {
    let seg = &text[s..e];
    let lead = seg.len() - seg.trim_start().len();
    let trimmed = seg.trim();
    if !trimmed.is_empty() {
        let start = s + lead;
        out.push(Piece {
            start,
            end: start + trimmed.len(),
            words: words(trimmed),
        });
    }
}

/// Consecutive windows of at most `max` words.
fn word_windows(text: &str, p: Piece, max: usize) -> Vec<Piece> {
    let slice = &text[p.start..p.end];
    let mut bounds = Vec::new();
    let mut in_word = false;
    for (i, c) in slice.char_indices() {
        if !c.is_whitespace() && !in_word {
            bounds.push((i, i));
            in_word = true;
        } else if c.is_whitespace() && in_word {
            if let Some(last) = bounds.last_mut() {
                last.1 = i;
            }
            in_word = false;
        }
    }
    if in_word {
        if let Some(last) = bounds.last_mut() {
            last.1 = slice.len();
        }
    }
    bounds
        .chunks(max)
        .filter_map(|w| {
            Some(Piece {
                start: p.start + w.first()?.0,
                end: p.start + w.last()?.1,
                words: w.len(),
            })
        })
        .collect()
}

/// Groups consecutive pieces: a group closes when the next piece would pass `target`, and never
/// passes `max`. Returns byte ranges.
fn pack(pieces: &[Piece], target: usize, max: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, usize, usize)> = None;
    for p in pieces {
        cur = match cur {
            Some((s, _, w)) if w + p.words <= target.max(1) && w + p.words <= max => {
                Some((s, p.end, w + p.words))
            }
            Some((s, e, _)) => {
                out.push((s, e));
                Some((p.start, p.end, p.words))
            }
            None => Some((p.start, p.end, p.words)),
        };
    }
    if let Some((s, e, _)) = cur {
        out.push((s, e));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Date;

    fn doc(text: &str) -> Document {
        Document {
            path: "2020-01-01_x.md".into(),
            title: "T".into(),
            date: Date::parse("2020-01-01"),
            year: Some(2020),
            text: text.into(),
            hash: String::new(),
        }
    }

    fn opts(target: usize, max: usize) -> ChunkOptions {
        ChunkOptions {
            target_words: target,
            max_words: max,
        }
    }

    #[test]
    fn sections_come_from_the_nearest_heading() {
        let d = doc("# Title\n\nIntro para.\n\n## Policy\n\nRates held.\n\nMore policy.\n\n## Outlook\n\nGrowth.");
        let c = chunk_document(&d, &opts(100, 200));
        let got: Vec<(Option<&str>, &str)> = c
            .iter()
            .map(|c| (c.section.as_deref(), c.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                (Some("Title"), "Intro para."),
                (Some("Policy"), "Rates held.\n\nMore policy."),
                (Some("Outlook"), "Growth.")
            ]
        );
        assert_eq!(
            c.iter().map(|c| c.ordinal).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        assert!(c
            .iter()
            .all(|c| c.year == Some(2020) && c.document == "2020-01-01_x.md"));
    }

    #[test]
    fn text_before_any_heading_has_no_section() {
        let c = chunk_document(&doc("Just text.\n\n# Later\n\nx"), &opts(100, 200));
        assert_eq!(c[0].section, None);
        assert_eq!(c[1].section.as_deref(), Some("Later"));
    }

    #[test]
    fn byte_ranges_slice_back_to_the_text() {
        let text = "# H\n\n  Indented para one.\nsame para.\n\nPara two é ü.\n\n## S2\n\nLast.";
        let d = doc(text);
        for c in chunk_document(&d, &opts(3, 5)) {
            assert_eq!(&text[c.byte_start..c.byte_end], c.text);
        }
    }

    #[test]
    fn chunks_never_exceed_max_words() {
        let sentence = "alpha beta gamma delta epsilon. ";
        let long_para = sentence.repeat(60);
        let giant_sentence = "word ".repeat(450);
        let text = format!(
            "# T\n\n{long_para}\n\nshort para\n\n{giant_sentence}\n\n{}",
            "x. ".repeat(30)
        );
        let d = doc(&text);
        for (target, max) in [(160, 200), (20, 25), (5, 5)] {
            let chunks = chunk_document(&d, &opts(target, max));
            assert!(!chunks.is_empty());
            for c in &chunks {
                assert!(words(&c.text) <= max, "{} words > {max}", words(&c.text));
                assert_eq!(&text[c.byte_start..c.byte_end], c.text);
            }
            let total: usize = chunks.iter().map(|c| words(&c.text)).sum();
            assert_eq!(
                total,
                words(&text) - 2,
                "every word but the heading lands in exactly one chunk"
            );
        }
    }

    #[test]
    fn paragraphs_are_packed_to_the_target() {
        let para = "one two three four five.";
        let text = [para; 10].join("\n\n");
        let c = chunk_document(&doc(&text), &opts(12, 20));
        assert_eq!(c.len(), 5, "two 5-word paragraphs per 12-word target");
    }

    #[test]
    fn ids_are_stable_and_change_with_content_or_document() {
        let a = chunk_document(&doc("# T\n\nSame text.\n\nOther."), &opts(2, 5));
        let b = chunk_document(&doc("# T\n\nSame text.\n\nOther."), &opts(2, 5));
        assert_eq!(a, b);
        assert_ne!(a[0].chunk_id, a[1].chunk_id);
        let changed = chunk_document(&doc("# T\n\nSame text!\n\nOther."), &opts(2, 5));
        assert_ne!(a[0].chunk_id, changed[0].chunk_id);
        let mut other = doc("# T\n\nSame text.\n\nOther.");
        other.path = "b.md".into();
        assert_ne!(
            chunk_document(&other, &opts(2, 5))[0].chunk_id,
            a[0].chunk_id
        );
        assert!(a[0].chunk_id.len() == 16 && a[0].chunk_id.bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn empty_documents_have_no_chunks() {
        assert!(chunk_document(&doc(""), &ChunkOptions::default()).is_empty());
        assert!(chunk_document(&doc("# Only a heading\n\n"), &ChunkOptions::default()).is_empty());
    }
}
