//! What part of a sentence too long to answer whole may answer: the directive a vote sentence
//! quotes, or the first clauses of a resolution's enumerated terms.

use crate::orchestrator::text::is_whole_sentence;

/// The mark standing for the clauses an answer leaves out of a sentence it quotes.
pub const LEFT_OUT: &str = "[\u{2026}]";

/// What `sentence` quotes after a colon (`…: "Effective November 9, …`), without the opening
/// quotation mark (nor the closing one, when the quotation ends with it), when that is a whole
/// sentence; `None` otherwise.
pub fn quoted_tail(sentence: &str) -> Option<&str> {
    let at = [": \"", ": \u{201C}"]
        .iter()
        .filter_map(|m| sentence.find(m).map(|i| i + m.len()))
        .min()?;
    let tail = sentence.get(at..)?.trim();
    let marks = tail.matches(['"', '\u{201C}', '\u{201D}']).count();
    let tail = if marks % 2 == 1 {
        tail.strip_suffix(['"', '\u{201D}']).unwrap_or(tail)
    } else {
        tail
    };
    is_whole_sentence(tail).then_some(tail)
}

/// Openers of a vote the minutes run on from the heading and the attendance list before it,
/// with no full stop between ("… Vice Presidents, Federal Reserve Banks of Chicago, Boston, and
/// Kansas City, respectively Selection of Committee Officer By unanimous vote, the Committee
/// selected …").
const RUN_IN_OPENERS: [&str; 2] = [" By unanimous vote, ", " By notation vote "];

/// The vote run on at the end of `sentence` (see [`RUN_IN_OPENERS`]), when it is a whole
/// sentence of at most `max_words` words; `None` otherwise.
pub fn run_in_tail(sentence: &str, max_words: usize) -> Option<&str> {
    let at = RUN_IN_OPENERS
        .iter()
        .filter_map(|o| sentence.rfind(o).map(|i| i + 1))
        .max()?;
    // Only a vote glued to what comes before it: after a full stop it opens a sentence anyway.
    let before = sentence[..at].trim_end();
    if before.ends_with(['.', '?', '!', ':', ';']) {
        return None;
    }
    let tail = sentence.get(at..)?.trim();
    (is_whole_sentence(tail) && tail.split_whitespace().count() <= max_words).then_some(tail)
}

/// The opening of `sentence`, when it is longer than `max_words` and enumerates its terms as
/// clauses ("…: (i) mature no later than January 5, 2015; (ii) be subject to …; (iii) …"): up to
/// the end of the last whole clause that keeps it within `max_words`, at least two clauses in;
/// `None` otherwise.
pub fn enumeration_head(sentence: &str, max_words: usize) -> Option<&str> {
    if sentence.split_whitespace().count() <= max_words {
        return None;
    }
    // Where each clause after the first begins: "; (ii)", "; and (v)".
    let clause_ends: Vec<usize> = sentence
        .match_indices("; ")
        .map(|(i, _)| i)
        .filter(|&i| opens_numbered_clause(&sentence[i + 2..]))
        .collect();
    let first = sentence.find("(i)")?;
    clause_ends
        .iter()
        .rev()
        .map(|&end| &sentence[..end])
        .find(|head| head.split_whitespace().count() <= max_words)
        .filter(|head| head.len() > first && head[first..].contains("; ("))
}

/// Whether `rest` opens with a numbered clause: "(ii) be subject", "and (v) awarded".
fn opens_numbered_clause(rest: &str) -> bool {
    let rest = rest.strip_prefix("and ").unwrap_or(rest);
    let Some(inner) = rest.strip_prefix('(') else {
        return false;
    };
    let label = inner.split(')').next().unwrap_or("");
    inner.len() > label.len()
        && !label.is_empty()
        && label.len() <= 4
        && label.chars().all(|c| matches!(c, 'i' | 'v' | 'x'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vote_run_on_from_the_attendance_list_answers_alone() {
        let glued = "Daniel Aaronson, Joe Peek, and Jonathan L. Willis, Vice Presidents, Federal \
                     Reserve Banks of Chicago, Boston, and Kansas City, respectively Selection of \
                     Committee Officer By unanimous vote, the Committee selected Mark E. Van Der \
                     Weide to serve as general counsel.";
        assert_eq!(
            run_in_tail(glued, 120),
            Some("By unanimous vote, the Committee selected Mark E. Van Der Weide to serve as general counsel.")
        );
        // Opening its own sentence, or too long, it is not cut out.
        assert_eq!(
            run_in_tail(
                "The meeting opened. By unanimous vote, the minutes were approved.",
                120
            ),
            None
        );
        assert_eq!(run_in_tail(glued, 10), None);
    }

    #[test]
    fn a_long_vote_sentence_offers_the_directive_it_quotes() {
        let vote = "At the conclusion of the discussion, the Committee voted to authorize and direct the Desk to execute transactions in accordance with the following domestic policy directive: \"Effective November 9, 2018, the Committee directs the Desk to undertake operations at an offering rate of 2.00 percent.\"";
        assert_eq!(
            quoted_tail(vote),
            Some("Effective November 9, 2018, the Committee directs the Desk to undertake operations at an offering rate of 2.00 percent.")
        );
        assert_eq!(quoted_tail("The Committee said: \"we will act"), None);
        assert_eq!(quoted_tail("No quotation here."), None);
    }

    #[test]
    fn a_long_resolution_offers_its_first_terms() {
        let terms = "Such operations shall: (i) mature no later than January 5, 2015; (ii) be subject to an overall size limit of $300 billion outstanding at any one time; (iii) be subject to a maximum bid rate of ten basis points; and (iv) be awarded to all submitters at the stopout rate, determined by evaluating bids in ascending order by submitted rate.";
        // Within 40 words the first three clauses fit; the fourth would not.
        assert_eq!(
            enumeration_head(terms, 40),
            Some("Such operations shall: (i) mature no later than January 5, 2015; (ii) be subject to an overall size limit of $300 billion outstanding at any one time; (iii) be subject to a maximum bid rate of ten basis points")
        );
        // Short enough to answer whole, it is not cut.
        assert_eq!(enumeration_head(terms, 120), None);
        // Without numbered clauses there is nothing to cut at.
        let plain = "Participants noted that growth was moderate; several said that inflation was low; a few saw risks to the outlook; others disagreed.";
        assert_eq!(enumeration_head(plain, 10), None);
        // One clause is no list of terms.
        assert_eq!(enumeration_head(terms, 14), None);
    }
}
