//! Short previews of a chunk: the sentence that mentions the most query terms.

const MAX_CHARS: usize = 240;

/// Picks the sentence of `text` with the most distinct `terms` (lower-case words of the query,
/// matched as word prefixes so "lowered" matches "lower"), trimmed to about 240 characters.
pub fn snippet(text: &str, terms: &[String]) -> String {
    let best = sentences(text)
        .max_by_key(|s| {
            let lower = s.to_lowercase();
            let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
            let hits = terms
                .iter()
                .filter(|t| words.iter().any(|w| w.starts_with(t.as_str())))
                .count();
            // Prefer earlier sentences on ties: max_by_key keeps the last max, so negate position.
            (hits, std::cmp::Reverse(s.as_ptr() as usize))
        })
        .unwrap_or(text);
    truncate_chars(best.trim(), MAX_CHARS)
}

fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    for (i, ch) in text.char_indices() {
        let end = i + ch.len_utf8();
        let at_break =
            matches!(ch, '.' | '?' | '!') && bytes.get(end).is_none_or(|b| b.is_ascii_whitespace());
        if at_break || ch == '\n' {
            if !text[start..end].trim().is_empty() {
                out.push(&text[start..end]);
            }
            start = end;
        }
    }
    if !text[start..].trim().is_empty() {
        out.push(&text[start..]);
    }
    out.into_iter()
}

fn truncate_chars(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.split_whitespace().collect::<Vec<_>>().join(" ");
    }
    let cut: String = s.chars().take(max).collect();
    let cut = cut.rsplit_once(' ').map(|(a, _)| a).unwrap_or(&cut);
    format!("{} …", cut.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_sentence_with_most_query_terms() {
        let text = "Growth was solid. The Committee decided to lower the target range for the federal funds rate. Inflation was low.";
        let terms = vec![
            "lower".to_string(),
            "federal".to_string(),
            "rate".to_string(),
        ];
        assert_eq!(
            snippet(text, &terms),
            "The Committee decided to lower the target range for the federal funds rate."
        );
    }

    #[test]
    fn long_sentences_are_cut_on_a_word_boundary() {
        let text = "word ".repeat(200);
        let s = snippet(&text, &[]);
        assert!(s.chars().count() <= MAX_CHARS + 2);
        assert!(s.ends_with(" …"));
    }

    #[test]
    fn handles_text_without_sentence_ends_or_ascii() {
        assert_eq!(
            snippet("résumé naïve café", &["café".to_string()]),
            "résumé naïve café"
        );
        assert_eq!(snippet("", &[]), "");
    }
}
