//! Small text utilities shared by the offline stages.

pub use crate::corpus::sentences;

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

/// A sentence as an answer shows it: whitespace collapsed, markup removed (headings, bullets,
/// emphasis, code ticks, HTML tags) and quotation marks balanced by dropping the unmatched ones.
pub fn clean_sentence(s: &str) -> String {
    let mut t = strip_tags(s);
    for m in ["**", "__", "`"] {
        t = t.replace(m, "");
    }
    let words: Vec<&str> = t
        .split_whitespace()
        .filter(|w| !matches!(*w, "*" | "#" | "##" | "###" | "•"))
        .collect();
    // A removed tag leaves a space before the punctuation that followed it.
    let mut t = words
        .join(" ")
        .replace(" .", ".")
        .replace(" ,", ",")
        .replace(" ;", ";");
    while let Some(rest) = ["# ", "> ", "- ", "* ", "• "]
        .iter()
        .find_map(|m| t.strip_prefix(m))
    {
        t = rest.trim_start().to_string();
    }
    let t = without_heading(t.trim_start_matches('#').trim());
    balance_quotes(t)
}

/// A sentence that runs on from an all-capitals heading ("STATEMENT ON LONGER-RUN GOALS (As
/// reaffirmed …) The Committee is …") starts where the heading ends: at the first capitalised
/// word after a run of at least three words in capitals (a parenthesis after the heading goes
/// with it).
fn without_heading(t: &str) -> &str {
    let words: Vec<(usize, &str)> = t
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - t.as_ptr() as usize, w))
        .collect();
    let is_caps = |w: &str| {
        let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
        letters.len() >= 2 && letters.iter().all(|c| c.is_uppercase())
    };
    if let Some(at) = glued_heading_end(&words) {
        return &t[at..];
    }
    let caps = words.iter().take_while(|(_, w)| is_caps(w)).count();
    if caps < 3 || caps == words.len() {
        return t;
    }
    let mut i = caps;
    // "(As reaffirmed effective January 26, 2021)": part of the heading.
    if words[i].1.starts_with('(') {
        while i < words.len() && !words[i].1.contains(')') {
            i += 1;
        }
        i += 1;
    }
    match words.get(i) {
        Some((at, w)) if w.chars().next().is_some_and(char::is_uppercase) => &t[*at..],
        _ => t,
    }
}

/// Words that open a sentence run into a title-case heading before them ("Staff Review of the
/// Financial SituationThe information …", "Committee Policy ActionIn the …").
const GLUED_OPENERS: &[&str] = &[
    "The",
    "In",
    "By",
    "At",
    "On",
    "Staff",
    "Information",
    "Participants",
    "Members",
    "With",
    "Over",
    "Since",
    "Against",
    "It",
    "This",
    "After",
    "During",
    "Following",
    "Consistent",
    "According",
    "Under",
];

/// Where the sentence starts when a title-case heading of at least two words runs into its
/// first word with no space ("Notation VoteBy notation vote …"): at that word's opener.
fn glued_heading_end(words: &[(usize, &str)]) -> Option<usize> {
    let title_case = |w: &str| {
        w.chars().next().is_some_and(char::is_uppercase)
            || matches!(w, "of" | "the" | "and" | "on" | "for" | "in" | "to")
    };
    for (k, (at, w)) in words.iter().enumerate().take(12) {
        if !title_case(w) {
            return None;
        }
        if k == 0 {
            continue;
        }
        // The opener ends the heading's last word, a lower-case letter before it.
        let split = GLUED_OPENERS.iter().find_map(|o| {
            let head = w.strip_suffix(o)?;
            (head.len() >= 4 && head.chars().last()?.is_lowercase()).then_some(head.len())
        });
        if let Some(i) = split {
            return Some(at + i);
        }
    }
    None
}

/// `<b>`, `</p>`, `<br/>`: anything that looks like an HTML tag.
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('<') {
        let after = &rest[open + 1..];
        let tag = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/');
        match (tag, after.find('>')) {
            (true, Some(close)) if !after[..close].contains('<') => {
                out.push_str(&rest[..open]);
                out.push(' ');
                rest = &after[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Drops quotation marks that have no partner: a closing curly quote with none open, opening
/// ones never closed, and one straight quote of an odd count (the first when the sentence
/// starts with it, else the last).
pub fn balance_quotes(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut drop = vec![false; chars.len()];
    let mut open: Vec<usize> = Vec::new();
    for (i, c) in chars.iter().enumerate() {
        match c {
            '\u{201C}' => open.push(i),
            '\u{201D}' if open.pop().is_none() => drop[i] = true,
            _ => {}
        }
    }
    for i in open {
        drop[i] = true;
    }
    let straight: Vec<usize> = (0..chars.len()).filter(|&i| chars[i] == '"').collect();
    if straight.len() % 2 == 1 {
        let i = if straight[0] == 0 {
            straight[0]
        } else {
            straight[straight.len() - 1]
        };
        drop[i] = true;
    }
    let out: String = chars
        .iter()
        .zip(drop)
        .filter(|(_, d)| !d)
        .map(|(c, _)| *c)
        .collect();
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A line without its list marker: `1. `, `2) `, `- `, `* `, `• `.
pub fn strip_list_marker(line: &str) -> &str {
    let t = line.trim_start();
    for m in ["- ", "* ", "\u{2022} "] {
        if let Some(rest) = t.strip_prefix(m) {
            return rest.trim_start();
        }
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    if (1..=3).contains(&digits) {
        let rest = &t[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return r.trim_start();
        }
    }
    t
}

/// Whether `s` is a whole sentence: it starts with a capital, a digit or a quotation mark and
/// ends with `.`, `?` or `!` (before any closing quotes or brackets), so a fragment cut from
/// the middle of a passage is not shown as a sentence.
pub fn is_whole_sentence(s: &str) -> bool {
    let start = s
        .chars()
        .find(|c| !matches!(c, '"' | '\u{201C}' | '\u{2018}' | '(' | '['));
    let end = s
        .trim_end()
        .chars()
        .rev()
        .find(|c| !matches!(c, '"' | '\u{201D}' | '\u{2019}' | ')' | ']'));
    start.is_some_and(|c| c.is_uppercase() || c.is_ascii_digit())
        && end.is_some_and(|c| matches!(c, '.' | '?' | '!'))
}

/// What is wrong with an answer's text as prose: unbalanced quotation marks, markup,
/// a sentence that is not whole, a sentence said twice. Empty when the text is clean.
pub fn text_problems(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let plain = super::citations::without_markers(text);
    if balance_quotes(&plain) != plain.split_whitespace().collect::<Vec<_>>().join(" ") {
        out.push("unbalanced quotation marks".to_string());
    }
    if plain.contains("**")
        || plain.contains('`')
        || strip_tags(&plain) != plain
        || plain.lines().any(|l| {
            let l = l.trim_start();
            l.starts_with('#') || l.starts_with("* ") || l.starts_with("> ")
        })
    {
        out.push("markup in the text".to_string());
    }
    let mut seen: Vec<String> = Vec::new();
    // A list is read item by item; a line ending in a colon introduces it.
    let items = plain
        .lines()
        .map(|l| strip_list_marker(l.trim()))
        .filter(|l| !l.is_empty() && !l.ends_with(':'));
    for s in items.flat_map(sentences) {
        if !is_whole_sentence(s) {
            out.push(format!("not a whole sentence: {s}"));
        }
        let key = words(s).join(" ");
        if seen.contains(&key) {
            out.push(format!("sentence repeated: {s}"));
        }
        seen.push(key);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_heading_run_into_a_sentence_is_left_out() {
        assert_eq!(
            clean_sentence("ANNUAL REVIEW OF POLICY (As amended effective May 2, 2019) The Board keeps its aims."),
            "The Board keeps its aims."
        );
        assert_eq!(
            clean_sentence("QUARTERLY REPORT SUMMARY The outlook improved."),
            "The outlook improved."
        );
        // Acronyms in a sentence are not a heading; a heading alone stays as it is.
        assert_eq!(
            clean_sentence("The FOMC and the ECB met."),
            "The FOMC and the ECB met."
        );
        assert_eq!(
            clean_sentence("FOMC ECB SNB swap lines"),
            "FOMC ECB SNB swap lines"
        );
        assert_eq!(clean_sentence("POLICY REVIEW NOTES"), "POLICY REVIEW NOTES");
        // A title-case heading run into the first word, with no space.
        assert_eq!(
            clean_sentence("Staff Review of the Financial SituationThe decisions were expected."),
            "The decisions were expected."
        );
        assert_eq!(
            clean_sentence("Notation VoteBy notation vote, the minutes were approved."),
            "By notation vote, the minutes were approved."
        );
        // A name with a capital inside it is not a heading.
        assert_eq!(
            clean_sentence("The BlackRock fund and Mr. McTeer In turn spoke."),
            "The BlackRock fund and Mr. McTeer In turn spoke."
        );
    }

    #[test]
    fn cleaning_removes_markup_and_unmatched_quotes() {
        assert_eq!(
            clean_sentence("## The **rate** was   cut."),
            "The rate was cut."
        );
        assert_eq!(
            clean_sentence("* Bank of Canada * Bank of Japan"),
            "Bank of Canada Bank of Japan"
        );
        assert_eq!(clean_sentence("<p>Rates <b>rose</b>.</p>"), "Rates rose.");
        assert_eq!(
            clean_sentence("\"The Committee will act as appropriate."),
            "The Committee will act as appropriate."
        );
        assert_eq!(
            clean_sentence("It kept the \u{201C}extended period\u{201D} language.\u{201D}"),
            "It kept the \u{201C}extended period\u{201D} language."
        );
        assert_eq!(
            clean_sentence("It said \u{201C}patient."),
            "It said patient."
        );
        assert_eq!(clean_sentence("a < b and c > d."), "a < b and c > d.");
        assert_eq!(
            balance_quotes("He said \"wait\" twice."),
            "He said \"wait\" twice."
        );
    }

    #[test]
    fn whole_sentences_and_text_problems() {
        assert!(is_whole_sentence("The Committee decided to act."));
        assert!(is_whole_sentence("\u{201C}We will act.\u{201D}"));
        assert!(is_whole_sentence("2008 was hard."));
        assert!(!is_whole_sentence("and the rate was cut."));
        assert!(!is_whole_sentence("The rate was cut to"));
        assert!(text_problems("Rates fell [1]. Prices rose [2].").is_empty());
        let p = text_problems("\"Rates fell [1]. Rates fell [2]. **Bold** and cut off");
        assert!(p.iter().any(|x| x.contains("quotation")), "{p:?}");
        assert!(p.iter().any(|x| x.contains("markup")), "{p:?}");
        assert!(p.iter().any(|x| x.contains("repeated")), "{p:?}");
        assert!(
            p.iter().any(|x| x.contains("not a whole sentence")),
            "{p:?}"
        );
        // A list: its heading and item numbers are layout.
        assert!(text_problems("Part by part:\n1. Rates fell [1].\n2. Prices rose [2].").is_empty());
        assert_eq!(strip_list_marker("12) Rates fell."), "Rates fell.");
        assert_eq!(
            strip_list_marker("2.5 percent was the rate."),
            "2.5 percent was the rate."
        );
    }

    #[test]
    fn overlap() {
        assert_eq!(jaccard("a b", "a b"), 1.0);
        assert_eq!(jaccard("a b", "c d"), 0.0);
        assert!((jaccard("a b c", "a b d") - 0.5).abs() < 1e-12);
    }
}
