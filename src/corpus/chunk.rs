//! Splitting documents into chunks: by headings, then paragraphs, packed up to a target size.
//!
//! Rules:
//! - A chunk never crosses a heading line, and heading lines are never chunk text.
//! - A chunk's section is the text of the nearest heading above it; text before any heading has
//!   no section.
//! - The title heading (a level-1 heading whose text equals the document's title) names nothing
//!   when the document has other headings: text under it (a preamble, like the attendance list of
//!   FOMC minutes) gets no section, as if it came before any heading, because repeating the title
//!   as a section adds nothing. When the title heading is the only heading (an FOMC statement),
//!   it is the section of everything under it.
//! - Paragraphs (blank-line separated) are packed until the next would pass `target_words`; a
//!   paragraph over `max_words` is split at sentence ends (`.`, `?`, `!` before whitespace), and a
//!   sentence over `max_words` at word boundaries, so no chunk passes `max_words`.
//! - A chunk's text is exactly `doc.text[byte_start..byte_end]`: it starts at its first
//!   paragraph's first non-space byte and ends at its last paragraph's last non-space byte, with
//!   the original whitespace (blank lines included) in between.

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

/// The paragraphs under one heading (or before the first heading).
#[derive(Debug, Default)]
struct Section<'a> {
    /// `(level, text)` of the heading that opens the section.
    heading: Option<(usize, &'a str)>,
    paragraphs: Vec<Piece>,
}

/// Which way passages are cut, recorded in the index so a change re-chunks it: 4 also ends a
/// sentence at a footnote's number after its full stop ("… June 16, 2022.5 It was …"); 3 cuts a
/// long paragraph where an answer cuts sentences (never after "Mr." or "U.S.", nor inside a
/// spaced ellipsis); 2 did, but cut inside ". . ."; 1 cut after any full stop.
pub const CHUNKER_VERSION: u32 = 4;

pub fn chunk_document(doc: &Document, opts: &ChunkOptions) -> Vec<Chunk> {
    let max = opts.max_words.max(1);
    let target = opts.target_words.clamp(1, max);
    let sections = sections(&doc.text);
    let names = section_names(&sections, &doc.title);
    let mut chunks = Vec::new();
    for (section, name) in sections.iter().zip(names) {
        let pieces: Vec<Piece> = section
            .paragraphs
            .iter()
            .flat_map(|&p| split_long(&doc.text, p, max))
            .collect();
        for (start, end) in pack(&pieces, target) {
            chunks.push(make_chunk(doc, name, start, end, chunks.len()));
        }
    }
    chunks
}

fn make_chunk(doc: &Document, section: Option<&str>, start: usize, end: usize, n: usize) -> Chunk {
    let text = &doc.text[start..end];
    Chunk {
        chunk_id: chunk_id(&doc.path, start, text),
        document: doc.path.clone(),
        title: doc.title.clone(),
        date: doc.date,
        year: doc.year,
        section: section.map(str::to_string),
        text: text.to_string(),
        byte_start: start,
        byte_end: end,
        ordinal: u32::try_from(n).unwrap_or(u32::MAX),
    }
}

/// First 16 hex digits of sha256(path, 0, start, 0, text): the same for the same passage of the
/// same document on every run, different for another document or changed text.
fn chunk_id(path: &str, start: usize, text: &str) -> String {
    let mut h = Sha256::new();
    h.update(path.as_bytes());
    h.update([0]);
    // A fixed width, so the id does not depend on the platform's `usize`.
    h.update((start as u64).to_le_bytes());
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

/// The section name of each section, applying the title-heading rule of the module docs.
fn section_names<'a>(sections: &[Section<'a>], title: &str) -> Vec<Option<&'a str>> {
    let title = title.trim();
    let is_title = |h: &(usize, &str)| h.0 == 1 && h.1 == title;
    let other_headings = sections
        .iter()
        .filter_map(|s| s.heading)
        .any(|h| !h.1.is_empty() && !is_title(&h));
    sections
        .iter()
        .map(|s| match s.heading {
            Some(h) if other_headings && is_title(&h) => None,
            Some((_, text)) if !text.is_empty() => Some(text),
            _ => None,
        })
        .collect()
}

/// Splits the text at heading lines into sections of trimmed, non-empty paragraphs. Every
/// heading opens a section, even an empty one, so that the title rule can see all headings.
fn sections(text: &str) -> Vec<Section<'_>> {
    let mut out = vec![Section::default()];
    let mut para: Option<(usize, usize)> = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        let content = line.trim_end_matches('\n');
        if let Some(h) = heading(content) {
            close_paragraph(text, &mut para, &mut out);
            out.push(Section {
                heading: Some(h),
                paragraphs: Vec::new(),
            });
        } else if content.trim().is_empty() {
            close_paragraph(text, &mut para, &mut out);
        } else {
            let s = start + (content.len() - content.trim_start().len());
            let e = start + content.trim_end().len();
            para = Some(para.map_or((s, e), |(ps, _)| (ps, e)));
        }
    }
    close_paragraph(text, &mut para, &mut out);
    out
}

fn close_paragraph(text: &str, para: &mut Option<(usize, usize)>, out: &mut [Section]) {
    let (Some((start, end)), Some(section)) = (para.take(), out.last_mut()) else {
        return;
    };
    let words = words(&text[start..end]);
    if words > 0 {
        section.paragraphs.push(Piece { start, end, words });
    }
}

/// A paragraph over `max` words as its sentences, each sentence over `max` as word windows.
/// `pack` then regroups them up to the target.
fn split_long(text: &str, p: Piece, max: usize) -> Vec<Piece> {
    if p.words <= max {
        return vec![p];
    }
    sentence_ranges(text, p.start, p.end)
        .into_iter()
        .flat_map(|s| {
            if s.words <= max {
                vec![s]
            } else {
                word_windows(text, s, max)
            }
        })
        .collect()
}

/// Sentences of `text[start..end]`, cut where an answer cuts them ([`super::sentence_spans`]):
/// never after a title or an initial ("Mr. Hoenig", "the U.S. outlook"), so no passage ends
/// inside a sentence an answer would quote.
fn sentence_ranges(text: &str, start: usize, end: usize) -> Vec<Piece> {
    super::sentence_spans(&text[start..end])
        .into_iter()
        .map(|r| Piece {
            start: start + r.start,
            end: start + r.end,
            words: words(&text[start + r.start..start + r.end]),
        })
        .collect()
}

/// Consecutive windows of at most `max` words.
fn word_windows(text: &str, p: Piece, max: usize) -> Vec<Piece> {
    let slice = &text[p.start..p.end];
    let mut bounds: Vec<(usize, usize)> = Vec::new();
    let mut word_start = None;
    for (i, c) in slice.char_indices() {
        match (c.is_whitespace(), word_start) {
            (false, None) => word_start = Some(i),
            (true, Some(s)) => {
                bounds.push((s, i));
                word_start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = word_start {
        bounds.push((s, slice.len()));
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

/// Groups consecutive pieces: a group closes when the next piece would pass `target`. Every
/// piece is at most `max` ≥ `target` words, so no group passes `max`. Returns byte ranges.
fn pack(pieces: &[Piece], target: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, usize, usize)> = None;
    for p in pieces {
        cur = match cur {
            Some((s, _, w)) if w + p.words <= target => Some((s, p.end, w + p.words)),
            Some((s, e, _)) => {
                out.push((s, e));
                Some((p.start, p.end, p.words))
            }
            None => Some((p.start, p.end, p.words)),
        };
    }
    out.extend(cur.map(|(s, e, _)| (s, e)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Date;
    use proptest::prelude::*;

    fn titled(title: &str, text: &str) -> Document {
        Document {
            path: "2020-01-01_x.md".into(),
            title: title.into(),
            date: Date::parse("2020-01-01"),
            year: Some(2020),
            text: text.into(),
            hash: String::new(),
        }
    }

    fn doc(text: &str) -> Document {
        titled("T", text)
    }

    fn opts(target: usize, max: usize) -> ChunkOptions {
        ChunkOptions {
            target_words: target,
            max_words: max,
        }
    }

    fn sections_and_texts(chunks: &[Chunk]) -> Vec<(Option<&str>, &str)> {
        chunks
            .iter()
            .map(|c| (c.section.as_deref(), c.text.as_str()))
            .collect()
    }

    fn texts(chunks: &[Chunk]) -> Vec<&str> {
        chunks.iter().map(|c| c.text.as_str()).collect()
    }

    #[test]
    fn sections_come_from_the_nearest_heading() {
        let d = titled(
            "Title",
            "# Title\n\nIntro para.\n\n## Policy\n\nRates held.\n\nMore policy.\n\n### Detail\n\nDeep.\n\n## Outlook\n\nGrowth.",
        );
        let c = chunk_document(&d, &opts(100, 200));
        assert_eq!(
            sections_and_texts(&c),
            vec![
                (None, "Intro para."),
                (Some("Policy"), "Rates held.\n\nMore policy."),
                (Some("Detail"), "Deep."),
                (Some("Outlook"), "Growth.")
            ]
        );
        assert_eq!(
            c.iter().map(|c| c.ordinal).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        assert!(c.iter().all(|c| c.year == Some(2020)
            && c.date == Date::parse("2020-01-01")
            && c.title == "Title"
            && c.document == "2020-01-01_x.md"));
    }

    #[test]
    fn a_lone_title_heading_is_the_section() {
        let d = titled("FOMC Statement", "# FOMC Statement\n\nOne.\n\nTwo.");
        let c = chunk_document(&d, &opts(1, 5));
        assert_eq!(
            sections_and_texts(&c),
            vec![
                (Some("FOMC Statement"), "One."),
                (Some("FOMC Statement"), "Two.")
            ]
        );
    }

    #[test]
    fn only_a_first_level_heading_equal_to_the_title_is_the_title_heading() {
        let d = titled("Title", "# Other\n\nA.\n\n## Title\n\nB.\n\n# Title\n\nC.");
        let c = chunk_document(&d, &opts(100, 200));
        assert_eq!(
            sections_and_texts(&c),
            vec![(Some("Other"), "A."), (Some("Title"), "B."), (None, "C.")]
        );
    }

    #[test]
    fn text_before_any_heading_has_no_section() {
        let c = chunk_document(&doc("Just text.\n\n# Later\n\nx"), &opts(100, 200));
        assert_eq!(c[0].section, None);
        assert_eq!(c[1].section.as_deref(), Some("Later"));
    }

    #[test]
    fn chunks_never_cross_a_heading() {
        let c = chunk_document(&doc("# A\none\n# B\ntwo\n#\nthree"), &opts(100, 200));
        assert_eq!(
            sections_and_texts(&c),
            vec![(Some("A"), "one"), (Some("B"), "two"), (None, "three")]
        );
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
    fn long_paragraphs_split_at_sentence_ends_then_words() {
        let text = "One two three four. Five six seven eight? Nine ten eleven twelve! Thirteen";
        let c = chunk_document(&doc(text), &opts(8, 10));
        assert_eq!(
            texts(&c),
            vec![
                "One two three four. Five six seven eight?",
                "Nine ten eleven twelve! Thirteen"
            ]
        );
        let c = chunk_document(&doc("a b c d e f g h i j k"), &opts(4, 4));
        assert_eq!(texts(&c), vec!["a b c d", "e f g h", "i j k"]);
    }

    #[test]
    fn a_long_paragraph_is_not_cut_after_a_title_or_an_initial() {
        let text = "Improving conditions worried Mr. Hoenig greatly today. \
                    Risks to the U.S. outlook had grown over time.";
        let c = chunk_document(&doc(text), &opts(9, 9));
        assert_eq!(
            texts(&c),
            vec![
                "Improving conditions worried Mr. Hoenig greatly today.",
                "Risks to the U.S. outlook had grown over time."
            ]
        );
    }

    /// A tiny deterministic generator, so the property test needs no seed handling.
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    fn generated_text(rng: &mut Lcg) -> String {
        const WORDS: [&str; 8] = [
            "rate",
            "inflation",
            "é",
            "Committee",
            "1/4",
            "U.S.",
            "ü—x",
            "a",
        ];
        let mut text = String::new();
        for _ in 0..rng.below(12) + 1 {
            match rng.below(6) {
                0 => text.push_str(&format!(
                    "{} Heading {}\n",
                    "#".repeat(rng.below(6) as usize + 1),
                    rng.below(9)
                )),
                1 => text.push_str("\n\n"),
                _ => {
                    for _ in 0..rng.below(8) {
                        let len = if rng.below(10) == 0 {
                            300
                        } else {
                            rng.below(25) + 1
                        };
                        for _ in 0..len {
                            text.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
                            text.push_str([" ", " ", "  ", "\n", " \t"][rng.below(5) as usize]);
                        }
                        text.push_str([". ", "? ", "! ", ", ", ".\n"][rng.below(5) as usize]);
                    }
                    text.push_str("\n\n");
                }
            }
        }
        text
    }

    #[test]
    fn chunks_never_exceed_max_words() {
        let mut rng = Lcg(7);
        for _ in 0..300 {
            let text = generated_text(&mut rng);
            let d = doc(&text);
            let heading_words: usize = text
                .lines()
                .filter(|l| heading(l).is_some())
                .map(words)
                .sum();
            for (target, max) in [(160, 200), (20, 25), (5, 5), (1, 1), (50, 30)] {
                let chunks = chunk_document(&d, &opts(target, max));
                for (i, c) in chunks.iter().enumerate() {
                    assert!(words(&c.text) <= max, "{} words > {max}", words(&c.text));
                    assert!(words(&c.text) > 0);
                    assert_eq!(&text[c.byte_start..c.byte_end], c.text);
                    assert_eq!(c.ordinal as usize, i);
                    assert!(c.text.lines().all(|l| heading(l).is_none()));
                }
                let total: usize = chunks.iter().map(|c| words(&c.text)).sum();
                assert_eq!(
                    total,
                    words(&text) - heading_words,
                    "every word but the headings lands in exactly one chunk"
                );
            }
        }
    }

    #[test]
    fn paragraphs_are_packed_to_the_target() {
        let para = "one two three four five.";
        let text = [para; 10].join("\n\n");
        let c = chunk_document(&doc(&text), &opts(12, 20));
        assert_eq!(c.len(), 5, "two 5-word paragraphs per 12-word target");
        assert!(c.iter().all(|c| c.text == format!("{para}\n\n{para}")));
    }

    #[test]
    fn ids_are_stable_and_change_with_content_or_document() {
        let a = chunk_document(&doc("# T\n\nSame text.\n\nOther."), &opts(2, 5));
        let b = chunk_document(&doc("# T\n\nSame text.\n\nOther."), &opts(2, 5));
        assert_eq!(a, b);
        assert_ne!(a[0].chunk_id, a[1].chunk_id);
        let changed = chunk_document(&doc("# T\n\nSame text!\n\nOther."), &opts(2, 5));
        assert_ne!(a[0].chunk_id, changed[0].chunk_id);
        assert_eq!(a[1].text, changed[1].text);
        assert_eq!(a[1].chunk_id, changed[1].chunk_id, "same text, same place");
        let mut other = doc("# T\n\nSame text.\n\nOther.");
        other.path = "b.md".into();
        assert_ne!(
            chunk_document(&other, &opts(2, 5))[0].chunk_id,
            a[0].chunk_id
        );
        assert!(a[0].chunk_id.len() == 16 && a[0].chunk_id.bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn the_id_is_the_documented_hash() {
        let c = chunk_document(&doc("Hello."), &opts(5, 5));
        let mut h = Sha256::new();
        h.update(b"2020-01-01_x.md\0");
        h.update(0u64.to_le_bytes());
        h.update(b"\0Hello.");
        let want: String = h.finalize()[..8]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(c[0].chunk_id, want);
    }

    /// A document of arbitrary Unicode words with headings, blank lines and odd white space
    /// (no-break, ideographic, NEL, line separator) between them.
    fn unicode_document() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            6 => "[^\\s#]{1,12}",
            2 => Just(" ".to_string()),
            1 => Just("\n".to_string()),
            1 => Just("\n\n".to_string()),
            1 => Just("\n# ".to_string()),
            1 => Just("\n## ".to_string()),
            1 => Just(". ".to_string()),
            1 => prop_oneof![
                Just("\u{a0}"), Just("\u{3000}"), Just("\u{85}"), Just("\u{2028}"), Just("\t"),
                Just("\u{200b}")
            ]
            .prop_map(str::to_string),
        ];
        proptest::collection::vec(piece, 0..160).prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn chunks_are_slices_within_word_limits_on_any_unicode(
            text in unicode_document(),
            max in 1usize..40,
            target in 1usize..40,
        ) {
            let d = doc(&text);
            let chunks = chunk_document(&d, &opts(target, max));
            let heading_words: usize = text
                .lines()
                .filter(|l| heading(l).is_some())
                .map(words)
                .sum();
            for (i, c) in chunks.iter().enumerate() {
                prop_assert_eq!(&text[c.byte_start..c.byte_end], c.text.as_str());
                prop_assert!(words(&c.text) <= max, "{} > {}", words(&c.text), max);
                prop_assert!(words(&c.text) > 0);
                prop_assert_eq!(c.ordinal as usize, i);
            }
            let total: usize = chunks.iter().map(|c| words(&c.text)).sum();
            prop_assert_eq!(total, words(&text) - heading_words);
        }

        #[test]
        fn any_text_at_all_chunks_without_panicking(text in any::<String>()) {
            for c in chunk_document(&doc(&text), &ChunkOptions::default()) {
                prop_assert_eq!(&text[c.byte_start..c.byte_end], c.text.as_str());
            }
        }
    }

    #[test]
    fn empty_documents_have_no_chunks() {
        assert!(chunk_document(&doc(""), &ChunkOptions::default()).is_empty());
        assert!(
            chunk_document(&doc("# Only a heading\n\n  \n"), &ChunkOptions::default()).is_empty()
        );
    }
}
