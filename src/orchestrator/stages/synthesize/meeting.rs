//! Which passages a question is answered from. A question that names a date is about one
//! meeting: it is answered from the passages of one date inside the named range (statement and
//! minutes alike), not from a mix of the meetings of that month or year. Which date: the one
//! the question's "early / mid / late March" or "first / last meeting of 2004" points to, else
//! the date of the passage with the best answering sentence (chosen by the stage).

use crate::corpus::Date;
use crate::index::Hit;
use crate::query::{pointer, MetadataHints, Pointer};

/// The hits that may answer, best first: with a date range, those dated inside it, narrowed to
/// the part of the month or the first / last meeting the question points to; without one, or
/// when no hit falls in the range, the best `n`. The caller then keeps one date (see
/// [`best_date`]) unless `several` (list and trend questions) asks for every date.
pub fn answer_hits(
    hits: &[Hit],
    hint: Option<MetadataHints>,
    question: &str,
    several: bool,
    n: usize,
) -> Vec<Hit> {
    let in_range: Vec<&Hit> = hits
        .iter()
        .filter(|h| hint.is_some_and(|r| h.date.is_some_and(|d| r.contains(d))))
        .collect();
    if in_range.is_empty() {
        return hits.iter().take(n).cloned().collect();
    }
    if several {
        return in_range.into_iter().take(n).cloned().collect();
    }
    let mut dates: Vec<Date> = Vec::new();
    for h in &in_range {
        if let Some(d) = h.date {
            if !dates.contains(&d) {
                dates.push(d);
            }
        }
    }
    let keep = narrow(&dates, pointer(question));
    in_range
        .into_iter()
        .filter(|h| h.date.is_some_and(|d| keep.contains(&d)))
        .take(n)
        .cloned()
        .collect()
}

/// The dates among `dates` (ordered best-ranked first) the pointer allows.
fn narrow(dates: &[Date], p: Pointer) -> Vec<Date> {
    let mut pool: Vec<Date> = dates.to_vec();
    if let Some((month, part)) = p.part {
        let narrowed: Vec<Date> = pool
            .iter()
            .copied()
            .filter(|d| d.month == month && part.contains(d.day))
            .collect();
        if !narrowed.is_empty() {
            pool = narrowed;
        }
    }
    let pick = match p.first {
        Some(true) => pool.iter().min().copied(),
        Some(false) => pool.iter().max().copied(),
        None => return pool,
    };
    pick.into_iter().collect()
}

/// Hits for the retrieval candidates not among `hits` (dates and sections from their
/// passages), so a "first / last meeting of 2004" question can reach a meeting that ranked
/// below the cut.
pub fn with_candidates(
    hits: &[Hit],
    candidate_ids: &[&str],
    retriever: &dyn crate::index::Retriever,
) -> Vec<Hit> {
    let mut out: Vec<Hit> = hits.to_vec();
    for id in candidate_ids {
        if out.iter().any(|h| h.chunk_id == *id) {
            continue;
        }
        let Some(p) = retriever.passage(id) else {
            continue;
        };
        out.push(Hit {
            rank: out.len() + 1,
            chunk_id: p.chunk_id,
            document: p.document,
            title: p.title,
            date: p.date,
            year: p.year,
            section: p.section,
            ..Hit::default()
        });
    }
    out
}

/// More passages of one meeting's documents, best first for `query`: the hits that ranked a
/// meeting first are a cut over the whole collection, and a minutes' reasons often sit in a
/// passage of the same meeting that ranked below it. Restricted to the meeting's year, then to
/// its date.
pub fn more_of_meeting(
    retriever: &dyn crate::index::Retriever,
    query: &str,
    query_vec: Option<&[f32]>,
    date: Date,
    k: usize,
) -> Vec<Hit> {
    let hint = MetadataHints {
        date_start: date,
        date_end: date,
    };
    let mut timings = crate::index::Timings::default();
    let Ok(cands) =
        retriever.candidates(query, query_vec, &[date.year], MEETING_POOL, &mut timings)
    else {
        return Vec::new();
    };
    let cut = crate::index::retriever::TopHits {
        hint: Some(hint),
        k,
        rerank: false,
    };
    retriever
        .top_hits(query, query_vec, &cands, cut, &mut timings)
        .map(|hits| hits.into_iter().filter(|h| h.date == Some(date)).collect())
        .unwrap_or_default()
}

/// Passages of the meeting on `date` that name by title a dissenter of the dissents in `hits`
/// and are not among them, best first, at most `k`: asked what a dissenter thought, their view
/// often runs on into a passage that did not rank ("Moreover, Mr. Fisher was concerned that
/// …", a paragraph after "Mr. Fisher dissented because …"). Searched with the question and
/// the dissenters' names.
pub fn dissenters_passages(
    retriever: &dyn crate::index::Retriever,
    question: &str,
    hits: &[Hit],
    date: Date,
    k: usize,
) -> Vec<Hit> {
    let text = |h: &Hit| retriever.passage(&h.chunk_id).map(|p| p.text);
    let mut names: Vec<String> = Vec::new();
    for t in hits
        .iter()
        .filter(|h| h.date == Some(date))
        .filter_map(text)
    {
        for s in crate::orchestrator::text::sentences(&t) {
            if super::anaphora::is_dissent(s) {
                for n in super::anaphora::dissenter_names(s) {
                    if !names.iter().any(|m| m == n) {
                        names.push(n.to_string());
                    }
                }
            }
        }
    }
    if names.is_empty() {
        return Vec::new();
    }
    let query = format!("{question} {}", names.join(" "));
    let titled = |text: &str| {
        names.iter().any(|n| {
            super::anaphora::SINGLE_TITLES
                .iter()
                .any(|t| text.contains(&format!("{t} {n}")))
        })
    };
    more_of_meeting(retriever, &query, None, date, MEETING_POOL)
        .into_iter()
        .filter(|h| {
            !hits.iter().any(|x| x.chunk_id == h.chunk_id) && text(h).is_some_and(|t| titled(&t))
        })
        .take(k)
        .collect()
}

/// The passage of the meeting on `date` that sets the next meeting's date, if it is not among
/// `hits`: the minutes close with it, and a question saying "the following FOMC meeting" shares
/// few words with "the next meeting of the Committee would be held on …".
pub fn next_meeting_passage(
    retriever: &dyn crate::index::Retriever,
    hits: &[Hit],
    date: Date,
) -> Option<Hit> {
    unread_passages_saying(
        retriever,
        NEXT_MEETING_QUERY,
        hits,
        date,
        super::cues::sets_next_meeting,
    )
    .next()
}

/// Passages of the meeting on `date` in which the members weigh the policy action, not among
/// `hits`, best first for `question`, at most `k`: asked why a meeting did what it did, the
/// minutes give the voters' reasons there ("members considered progress … as having been
/// disappointingly slow"), and the staff's and participants' accounts, or the statement's
/// wording of the action, often rank above it.
pub fn deliberation_passages(
    retriever: &dyn crate::index::Retriever,
    question: &str,
    hits: &[Hit],
    date: Date,
    k: usize,
) -> Vec<Hit> {
    unread_passages_saying(retriever, question, hits, date, super::cues::members_weigh)
        .take(k)
        .collect()
}

/// The best passage of the meeting on `date` not among `hits` holding a sentence of which
/// `says` holds (given it in lower case), searched with `question` and `hint` (how the
/// documents word such a sentence): asked who voted for the action, its roll call ("Voting
/// for this action: …") shares only "voting" with the question, and the Board's votes on its
/// own rates rank above it; asked for a meeting's policy decision, the sentence setting the
/// rate ("members agreed to maintain the target range … at 3/4 to 1 percent") sits in a
/// passage whose other sentences share the question's words less than the staff's accounts of
/// the Board's rates do.
pub fn unread_passage_saying(
    retriever: &dyn crate::index::Retriever,
    question: &str,
    hint: &str,
    hits: &[Hit],
    date: Date,
    says: Says,
) -> Option<Hit> {
    let query = format!("{question} {hint}");
    unread_passages_saying(retriever, &query, hits, date, says).next()
}

/// A test of a (lower-case) sentence: does it say what is looked for?
pub type Says = fn(&str) -> bool;

/// How the minutes open a roll call.
pub const ROLL_CALL_QUERY: &str = "Voting for this action";

/// How the minutes word a decision on the rate.
pub const RATE_DECISION_QUERY: &str =
    "members agreed to maintain the target range for the federal funds rate";

/// Whether a (lower-case) sentence short enough to answer sets the rate with its figure: a
/// long vote that quotes the statement deciding it answers by its quotation's first sentence,
/// not this one.
pub fn decides_rate_in_a_sentence(lower: &str) -> bool {
    lower.split_whitespace().count() <= super::LONGEST_WORDS && super::cues::decides_rate(lower)
}

/// Passages of the meeting on `date`, best first for `query`, that are not among `hits` and
/// hold a sentence of which `says` holds (given it in lower case); looked up as they are taken.
fn unread_passages_saying<'a>(
    retriever: &'a dyn crate::index::Retriever,
    query: &str,
    hits: &'a [Hit],
    date: Date,
    says: Says,
) -> impl Iterator<Item = Hit> + 'a {
    more_of_meeting(retriever, query, None, date, MEETING_POOL)
        .into_iter()
        .filter(|h| !hits.iter().any(|x| x.chunk_id == h.chunk_id))
        .filter(move |h| {
            retriever.passage(&h.chunk_id).is_some_and(|p| {
                crate::orchestrator::text::sentences(&p.text)
                    .iter()
                    .any(|s| says(&s.to_lowercase()))
            })
        })
}

/// How the minutes word the next meeting's date.
const NEXT_MEETING_QUERY: &str =
    "It was agreed that the next meeting of the Committee would be held on";

/// The sentences of the meeting before `date` in the collection that bear on `query`: what a
/// "what was new" question sets this meeting's sentences against.
pub fn previous_meeting_sentences(
    retriever: &dyn crate::index::Retriever,
    query: &str,
    query_vec: Option<&[f32]>,
    date: Date,
) -> Vec<String> {
    let Some(previous) = retriever.dates().into_iter().filter(|d| *d < date).max() else {
        return Vec::new();
    };
    more_of_meeting(retriever, query, query_vec, previous, PREVIOUS_PASSAGES)
        .iter()
        .filter_map(|h| retriever.passage(&h.chunk_id))
        .flat_map(|p| {
            crate::orchestrator::text::sentences(&p.text)
                .into_iter()
                .map(crate::orchestrator::text::clean_sentence)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Passages of the previous meeting read for a "what was new" question.
const PREVIOUS_PASSAGES: usize = 10;

/// Candidates drawn from a meeting's year when reading more of the meeting: a year holds
/// about eight meetings, so this leaves a dozen or more of the meeting's own passages.
const MEETING_POOL: usize = 80;

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(id: &str, date: &str) -> Hit {
        Hit {
            rank: 1,
            chunk_id: id.into(),
            document: format!("{date}_statement.md"),
            date: Date::parse(date),
            ..Hit::default()
        }
    }

    fn range(a: &str, b: &str) -> Option<MetadataHints> {
        Some(MetadataHints {
            date_start: Date::parse(a).unwrap(),
            date_end: Date::parse(b).unwrap(),
        })
    }

    fn ids(hits: &[Hit]) -> Vec<&str> {
        hits.iter().map(|h| h.chunk_id.as_str()).collect()
    }

    #[test]
    fn one_meeting_of_the_named_month_answers() {
        let hits = vec![
            hit("a", "2008-03-18"),
            hit("b", "2008-03-11"),
            hit("c", "2008-03-18"),
            hit("d", "2007-12-11"),
        ];
        let march = range("2008-03-01", "2008-03-31");
        assert_eq!(
            ids(&answer_hits(
                &hits,
                march,
                "Why did they act in March 2008?",
                false,
                5
            )),
            vec!["a", "b", "c"],
            "both meetings of the month may answer; the best sentence picks one"
        );
        assert_eq!(
            ids(&answer_hits(
                &hits,
                march,
                "What happened in early March 2008?",
                false,
                5
            )),
            vec!["b"]
        );
        assert_eq!(
            ids(&answer_hits(
                &hits,
                march,
                "List every action in March 2008",
                true,
                5
            )),
            vec!["a", "b", "c"]
        );
        assert_eq!(
            ids(&answer_hits(&hits, None, "rates?", false, 2)),
            vec!["a", "b"]
        );
        let y2010 = range("2010-01-01", "2010-12-31");
        assert_eq!(
            ids(&answer_hits(&hits, y2010, "rates in 2010?", false, 2)),
            vec!["a", "b"]
        );
    }

    #[test]
    fn first_and_last_meetings_of_a_year() {
        let hits = vec![
            hit("m", "2004-06-30"),
            hit("l", "2004-12-14"),
            hit("f", "2004-01-28"),
        ];
        let y = range("2004-01-01", "2004-12-31");
        assert_eq!(
            ids(&answer_hits(
                &hits,
                y,
                "the last FOMC meeting of 2004",
                false,
                5
            )),
            vec!["l"]
        );
        assert_eq!(
            ids(&answer_hits(
                &hits,
                y,
                "at the first meeting of 2004",
                false,
                5
            )),
            vec!["f"]
        );
        assert_eq!(
            ids(&answer_hits(&hits, y, "in 2004", false, 5)),
            vec!["m", "l", "f"]
        );
    }
}
