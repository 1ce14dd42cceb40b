//! Where sentences begin and end, as answers quote them and the chunker cuts passages: both
//! read the same boundaries, so no passage ends inside a sentence an answer would quote.

use std::ops::Range;

/// Splits text into sentences at `.`, `?`, `!` followed by whitespace, and at blank lines.
/// A full stop does not end a sentence after an initial ("Jerome H. Powell", "U.S."), after a
/// title or abbreviation ("Mr.", "St.", "e.g."), when the next word starts in lower case
/// ("8:00 a.m. on Tuesday": a sentence never starts in lower case), or inside a spaced ellipsis
/// (`that ". . . policy accommodation can be removed"`).
pub fn sentences(text: &str) -> Vec<&str> {
    sentence_spans(text).into_iter().map(|r| &text[r]).collect()
}

/// Where each of [`sentences`] lies in `text` (byte ranges, trimmed): what the chunker cuts by.
pub fn sentence_spans(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (k, &(i, ch)) in chars.iter().enumerate() {
        let next = chars.get(k + 1).map(|c| c.1);
        let mut end = i + ch.len_utf8();
        // Where the next sentence starts when it is not at `end`: after a footnote's number.
        let next_start = if ch == '.' {
            footnote_after(&chars, k)
        } else {
            None
        };
        let boundary = match ch {
            '.' if next_start.is_some() => true,
            '.' | '?' | '!' => {
                // A closing quotation mark after the stop ends the sentence with it ("… for an
                // extended period." Mr. Hoenig was concerned …).
                let quote = next.filter(|c| matches!(c, '"' | '\u{201D}' | '\u{2019}'));
                let skip = usize::from(quote.is_some());
                let after = chars.get(k + 1 + skip).map(|c| c.1);
                let prev = k.checked_sub(1).map(|j| chars[j].1);
                let prev2 = k.checked_sub(2).map(|j| chars[j].1);
                let initial = ch == '.'
                    && prev.is_some_and(|p| p.is_uppercase())
                    && prev2.is_none_or(|p| !p.is_alphanumeric());
                let abbreviation = ch == '.' && is_abbreviation(&text[..i]);
                let next_word = chars[k + 1 + skip..]
                    .iter()
                    .map(|c| c.1)
                    .find(|c| !c.is_whitespace());
                let lower_next = ch == '.' && next_word.is_some_and(char::is_lowercase);
                // The dots of a spaced ellipsis (". . . policy accommodation") end nothing.
                let ellipsis = ch == '.' && next_word == Some('.');
                let ends = after.is_none_or(char::is_whitespace)
                    && !initial
                    && !abbreviation
                    && !lower_next
                    && !ellipsis;
                if let (true, Some(q)) = (ends, quote) {
                    // An answer's markers after the quotation mark are its sentence's ("… was
                    // “somewhat elevated.” [3] To further …").
                    end += q.len_utf8();
                    end += trailing_markers(&text[end..]);
                }
                ends
            }
            '\n' => next == Some('\n'),
            _ => false,
        };
        if boundary {
            push(&mut out, text, start..end);
            start = next_start.unwrap_or(end);
        }
    }
    push(&mut out, text, start..text.len());
    out
}

/// Where the sentence after a footnote's number starts, when the full stop at `k` is followed
/// by one ("… effective June 16, 2022.5 It was agreed …", "… the economic outlook.2 After …"):
/// one or two digits, a space and a capital, after a word, a closing bracket or a year. A
/// decimal ("1.5 Percent") is none: its full stop follows a digit that is not a year's.
fn footnote_after(chars: &[(usize, char)], k: usize) -> Option<usize> {
    let digits = chars[k + 1..]
        .iter()
        .take_while(|c| c.1.is_ascii_digit())
        .count();
    if !(1..=2).contains(&digits) {
        return None;
    }
    let space = chars.get(k + 1 + digits)?;
    let capital = chars.get(k + 2 + digits)?;
    if !space.1.is_whitespace() || !capital.1.is_uppercase() {
        return None;
    }
    let before: Vec<char> = chars[..k].iter().rev().take(5).map(|c| c.1).collect();
    let after_word = before
        .first()
        .is_some_and(|c| c.is_lowercase() || *c == ')');
    let after_year = before.len() == 5
        && before[..4].iter().all(char::is_ascii_digit)
        && !before[4].is_ascii_digit();
    (after_word || after_year).then_some(space.0)
}

/// The length of the citation markers (` [3][4]`) that open `rest`, with the space before them;
/// 0 if it opens with none.
fn trailing_markers(rest: &str) -> usize {
    let body = rest.trim_start_matches(' ');
    let mut len = 0;
    let mut tail = body;
    while let Some(inner) = tail.strip_prefix('[') {
        let digits = inner.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 || !inner[digits..].starts_with(']') {
            break;
        }
        len += digits + 2;
        tail = &inner[digits + 1..];
    }
    if len == 0 {
        0
    } else {
        rest.len() - body.len() + len
    }
}

/// Abbreviations after which a full stop does not end a sentence.
const ABBREVIATIONS: [&str; 16] = [
    "mr", "mrs", "ms", "messrs", "dr", "st", "jr", "sr", "no", "vs", "etc", "e.g", "i.e", "gov",
    "inc", "co",
];

/// Whether `before` (the text up to a full stop) ends with an abbreviation.
fn is_abbreviation(before: &str) -> bool {
    let word = before
        .rsplit(|c: char| c.is_whitespace() || c == '(' || c == '"')
        .next()
        .unwrap_or("");
    let lower = word.to_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
}

/// Adds `span` of `text` to `out` without its surrounding whitespace, unless nothing is left.
fn push(out: &mut Vec<Range<usize>>, text: &str, span: Range<usize>) {
    let s = &text[span.clone()];
    let t = s.trim_start();
    let start = span.start + (s.len() - t.len());
    let end = start + t.trim_end().len();
    if end > start {
        out.push(start..end);
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
    fn a_footnote_number_after_a_full_stop_ends_the_sentence_and_is_dropped() {
        let s = sentences(
            "It was approved, effective June 16, 2022.5 It was agreed to meet. Spreads rose.2 After that, rates fell (TALF).3 The end. The rate was 2.5 Percent.",
        );
        assert_eq!(
            s,
            vec![
                "It was approved, effective June 16, 2022.",
                "It was agreed to meet.",
                "Spreads rose.",
                "After that, rates fell (TALF).",
                "The end.",
                "The rate was 2.5 Percent."
            ]
        );
    }

    #[test]
    fn a_closing_quotation_mark_ends_the_sentence_with_it() {
        let s = sentences(
            "He opposed \"an extended period.\" Mr. Hoenig was concerned. They said \u{201C}soon.\u{201D} It was. A \"quote.\"and more",
        );
        assert_eq!(
            s,
            vec![
                "He opposed \"an extended period.\"",
                "Mr. Hoenig was concerned.",
                "They said \u{201C}soon.\u{201D}",
                "It was.",
                "A \"quote.\"and more"
            ]
        );
        // An answer's markers after the quotation mark stay with its sentence.
        assert_eq!(
            sentences("It was \u{201C}elevated.\u{201D} [3][4] To further it [5]."),
            vec![
                "It was \u{201C}elevated.\u{201D} [3][4]",
                "To further it [5]."
            ]
        );
    }

    #[test]
    fn abbreviations_and_lower_case_continuations_do_not_end_sentences() {
        let s = sentences(
            "With Mr. Poole dissenting, the Committee voted. Banks of St. Louis and Kansas City approved. The meeting began at 8:00 a.m. on Tuesday. The U.S. economy grew.",
        );
        assert_eq!(
            s,
            vec![
                "With Mr. Poole dissenting, the Committee voted.",
                "Banks of St. Louis and Kansas City approved.",
                "The meeting began at 8:00 a.m. on Tuesday.",
                "The U.S. economy grew."
            ]
        );
        // A spaced ellipsis opening a quotation is inside the sentence quoting it.
        assert_eq!(
            sentences(
                "All agreed to the statement that \". . . policy accommodation can be removed at a pace that is likely to be measured.\" At the conclusion, the Committee voted."
            ),
            vec![
                "All agreed to the statement that \". . . policy accommodation can be removed at a pace that is likely to be measured.\"",
                "At the conclusion, the Committee voted."
            ]
        );
    }
}
