//! Small text utilities shared by the offline stages.

/// Splits text into sentences at `.`, `?`, `!` followed by whitespace, and at blank lines.
/// Abbreviation-like periods (a single capital letter or a digit before the period followed by
/// a digit) do not end a sentence.
pub fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, ch)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|c| c.1);
        let end = i + ch.len_utf8();
        let boundary = match ch {
            '.' | '?' | '!' => {
                let prev = k.checked_sub(1).map(|j| chars[j].1);
                let prev2 = k.checked_sub(2).map(|j| chars[j].1);
                let initial = prev.is_some_and(|p| p.is_uppercase())
                    && prev2.is_none_or(|p| !p.is_alphanumeric());
                next.is_none_or(char::is_whitespace) && !initial
            }
            '\n' => next == Some('\n'),
            _ => false,
        };
        if boundary {
            push(&mut out, &text[start..end]);
            start = end;
        }
    }
    push(&mut out, &text[start..]);
    out
}

fn push<'a>(out: &mut Vec<&'a str>, s: &'a str) {
    let t = s.trim();
    if !t.is_empty() {
        out.push(t);
    }
}

/// Lower-case alphanumeric words, for overlap measures.
pub fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Jaccard overlap of the word sets of two texts.
pub fn jaccard(a: &str, b: &str) -> f64 {
    let a: std::collections::HashSet<String> = words(a).into_iter().collect();
    let b: std::collections::HashSet<String> = words(b).into_iter().collect();
    let union = a.union(&b).count();
    if union == 0 {
        0.0
    } else {
        a.intersection(&b).count() as f64 / union as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_sentences_but_not_initials_or_decimals() {
        let s = sentences(
            "The rate is 1.5 percent. Chair Jerome H. Powell spoke! Why? Yes\n\nNext para",
        );
        assert_eq!(
            s,
            vec![
                "The rate is 1.5 percent.",
                "Chair Jerome H. Powell spoke!",
                "Why?",
                "Yes",
                "Next para"
            ]
        );
    }

    #[test]
    fn overlap() {
        assert_eq!(jaccard("a b", "a b"), 1.0);
        assert_eq!(jaccard("a b", "c d"), 0.0);
        assert!((jaccard("a b c", "a b d") - 0.5).abs() < 1e-12);
    }
}
