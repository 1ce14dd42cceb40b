//! When a passage supports a sentence of an answer: the rule behind every `[n]` that stays, and
//! the definition `fathom eval --qa --answers` measures citation precision with.
//!
//! A passage supports a sentence when
//! 1. every **figure** of the sentence appears in the passage: runs of digits, with the `.`, `,`,
//!    `/` and `-` between digits that make `1-1/4`, `2.5`, `1,000` one figure (`$4 billion`
//!    gives `4`, `28-day` gives `28`, `mid-2012` gives `2012`);
//! 2. every **name** of the sentence appears in the passage: each capitalised word of two or more
//!    letters other than the sentence's first word (`Bullard`, `Swiss`, `March`, `TSLF`),
//!    compared without regard to case;
//! 3. at least half of the sentence's **content words** (lower-case words of four or more
//!    letters, compared on their first five letters so `purchases` meets `purchase`) appear in
//!    the passage.
//!
//! The passage is read as its citation shows it: its date written out (`March 11, 2008`), its
//! title and section, then its text; so a sentence that says "On March 11, 2008, …" is supported
//! by a passage dated that day. A sentence with nothing to check is supported.

use std::collections::HashSet;

/// Share of content words that must appear in the passage.
pub const MIN_CONTENT_OVERLAP: f64 = 0.5;

/// How well one passage supports one sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct Support {
    /// Figures of the sentence missing from the passage.
    pub missing_figures: Vec<String>,
    /// Names of the sentence missing from the passage.
    pub missing_names: Vec<String>,
    /// Share of the sentence's content words found in the passage (1 when it has none).
    pub overlap: f64,
}

impl Support {
    /// Whether the passage supports the sentence (all three conditions of the module doc).
    pub fn holds(&self) -> bool {
        self.missing_figures.is_empty()
            && self.missing_names.is_empty()
            && self.overlap >= MIN_CONTENT_OVERLAP
    }

    /// A 0–1 score for ranking partial support: each missing figure or name costs a quarter.
    pub fn score(&self) -> f64 {
        let missing = (self.missing_figures.len() + self.missing_names.len()) as f64;
        (self.overlap - 0.25 * missing).max(0.0)
    }
}

/// The passage as its citation shows it: date, title, section and text.
pub fn cited_passage(
    date: Option<crate::corpus::Date>,
    title: &str,
    section: Option<&str>,
    text: &str,
) -> String {
    let date = date.map(|d| d.long_form()).unwrap_or_default();
    format!("{date}. {title}. {}. {text}", section.unwrap_or(""))
}

/// How well `passage` supports `sentence` (markers in either are ignored).
pub fn support(sentence: &str, passage: &str) -> Support {
    // A list item's number ("2. The Committee …") is layout, not a figure of the sentence.
    let plain = crate::orchestrator::citations::without_markers(sentence);
    let sentence = crate::orchestrator::text::strip_list_marker(&plain);
    let p_figures: HashSet<String> = figures(passage).into_iter().collect();
    let p_words: HashSet<String> = lower_words(passage).collect();
    let p_stems: HashSet<String> = p_words.iter().map(|w| stem(w)).collect();
    let missing_figures = figures(sentence)
        .into_iter()
        .filter(|f| !p_figures.contains(f))
        .collect();
    let missing_names = names(sentence)
        .into_iter()
        .filter(|n| !p_words.contains(&n.to_lowercase()))
        .collect();
    let content = content_words(sentence);
    let overlap = if content.is_empty() {
        1.0
    } else {
        content
            .iter()
            .filter(|w| p_stems.contains(&stem(w)))
            .count() as f64
            / content.len() as f64
    };
    Support {
        missing_figures,
        missing_names,
        overlap,
    }
}

/// Whether `passage` supports `sentence`.
pub fn supports(sentence: &str, passage: &str) -> bool {
    support(sentence, passage).holds()
}

/// Whether a retrieved passage, read as its citation shows it, supports `sentence`.
pub fn passage_supports(passage: &crate::index::Passage, sentence: &str) -> bool {
    supports(
        sentence,
        &cited_passage(
            passage.date,
            &passage.title,
            passage.section.as_deref(),
            &passage.text,
        ),
    )
}

/// The figures of a text, in order, without repeats.
pub fn figures(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        let mut j = i;
        let mut fig = String::new();
        while j < chars.len() {
            let c = chars[j];
            let joins = matches!(c, '.' | ',' | '/' | '-')
                && chars.get(j + 1).is_some_and(char::is_ascii_digit)
                && !fig.is_empty();
            if c.is_ascii_digit() || joins {
                fig.push(c);
                j += 1;
            } else {
                break;
            }
        }
        // "1,000" and "1000" are one figure; a comma between a list's numbers ("5, 6") is
        // not joined because a space follows it.
        let fig = fig.replace(',', "");
        if !out.contains(&fig) {
            out.push(fig);
        }
        i = j;
    }
    out
}

fn lower_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// Capitalised words of two or more letters, except the first word of the sentence.
pub fn names(sentence: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let words = sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().any(char::is_alphabetic));
    for w in words.skip(1) {
        let letters = w.chars().filter(|c| c.is_alphabetic()).count();
        if letters >= 2 && w.chars().next().is_some_and(char::is_uppercase) {
            let w = w.to_string();
            if !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out
}

/// Words too common to show that a passage says the same thing.
const STOP: [&str; 24] = [
    "that", "this", "with", "from", "have", "been", "were", "will", "would", "which", "their",
    "also", "into", "than", "they", "these", "those", "such", "over", "some", "more", "most",
    "other", "said",
];

fn content_words(sentence: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in sentence
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 4)
        .filter(|w| w.chars().next().is_some_and(char::is_lowercase))
    {
        let w = w.to_string();
        if !STOP.contains(&w.as_str()) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn stem(w: &str) -> String {
    w.chars().take(5).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures_keep_fractions_ranges_and_amounts_whole() {
        assert_eq!(
            figures(
                "to 1-1/4 percent, $4 billion, 2.5 percent, 1,000 and a 28-day term in mid-2012."
            ),
            vec!["1-1/4", "4", "2.5", "1000", "28", "2012"]
        );
        assert_eq!(figures("3/4 to 1 percent"), vec!["3/4", "1"]);
        assert_eq!(figures("years 5, 6"), vec!["5", "6"]);
        assert!(figures("no digits here").is_empty());
    }

    #[test]
    fn names_skip_the_first_word_and_initials() {
        assert_eq!(
            names("Voting against was Jeffrey M. Lacker, who preferred a hike in March."),
            vec!["Jeffrey", "Lacker", "March"]
        );
        assert_eq!(names("The TSLF will lend securities."), vec!["TSLF"]);
    }

    #[test]
    fn a_passage_stating_another_figure_does_not_support_the_sentence() {
        let sentence = "The Committee decided today to keep its target for the federal funds rate at 5-1/4 percent [1][2].";
        let same = "The Federal Open Market Committee decided today to keep its target for the federal funds rate at 5-1/4 percent.";
        let other = "The Federal Open Market Committee decided today to keep its target for the federal funds rate at 4-1/2 percent.";
        assert!(supports(sentence, same));
        let s = support(sentence, other);
        assert!(!s.holds());
        assert_eq!(s.missing_figures, vec!["5-1/4"]);
    }

    #[test]
    fn names_and_content_must_appear() {
        let passage = "Voting against the action was Jeffrey M. Lacker, who preferred to raise the target range by 25 basis points.";
        assert!(supports(
            "President Lacker dissented: he preferred to raise the target range by 25 basis points.",
            passage
        ));
        let s = support(
            "President Bullard dissented: he preferred to raise the target range by 25 basis points.",
            passage,
        );
        assert_eq!(s.missing_names, vec!["Bullard"]);
        assert!(!s.holds());
        // Same figures and names, different claim: too few content words in common.
        let s = support(
            "Inflation expectations remained anchored around target levels.",
            passage,
        );
        assert!(s.overlap < MIN_CONTENT_OVERLAP, "{s:?}");
        assert!(!s.holds());
    }

    #[test]
    fn the_citation_date_counts_as_part_of_the_passage() {
        let p = cited_passage(
            crate::corpus::Date::parse("2008-03-11"),
            "FOMC Statement, March 11, 2008",
            None,
            "The Federal Reserve announced today an expansion of its securities lending program.",
        );
        assert!(supports(
            "On March 11, 2008, the Federal Reserve announced an expansion of its securities lending program.",
            &p
        ));
        assert!(!supports(
            "On March 18, 2008, the Federal Reserve announced an expansion of its securities lending program.",
            &p
        ));
    }

    #[test]
    fn a_list_items_number_is_not_a_figure_of_it() {
        let p = "Voting against the action was Jeffrey M. Lacker.";
        assert!(supports(
            "2. Voting against the action was Jeffrey M. Lacker [1].",
            p
        ));
        assert!(supports(
            "- Voting against the action was Jeffrey M. Lacker.",
            p
        ));
        assert!(!supports(
            "Voting against the action in 2 meetings was Jeffrey M. Lacker.",
            p
        ));
    }

    #[test]
    fn partial_support_ranks_below_full_support() {
        let p = "The Committee decided to lower the target to 2 percent.";
        let full = support("The Committee decided to lower the target to 2 percent.", p);
        let part = support("The Committee decided to lower the target to 3 percent.", p);
        assert!(full.score() > part.score());
        assert_eq!(full.score(), 1.0);
    }
}
