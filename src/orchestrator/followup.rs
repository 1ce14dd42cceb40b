//! Follow-up questions, offline and pure: what earlier turns contribute to the next one.
//!
//! "And what about 2021?" means nothing to retrieval on its own. [`resolve`] rewrites such a
//! follow-up into a standalone query from the previous question's topic (its words without its
//! dates) and the new dates, or the previous dates when the follow-up names none.
//! [`chat_context_summary`] gives model-backed stages one line per earlier turn.

use crate::orchestrator::types::OrchestrationResult;
use crate::query::{date_hints, MetadataHints};

/// At most this many earlier turns go into a prompt's `chat_context_summary`.
pub const MAX_CONTEXT_ITEMS: usize = 20;

/// Longest answer gist kept per turn, in characters.
const GIST_CHARS: usize = 160;

/// Follow-ups led by one of these (or by a pronoun) are recognised only when this short.
const SHORT_WORDS: usize = 8;

/// What one earlier turn contributes to the next.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextItem {
    /// The question as it was run. For a follow-up pass the resolved query, so a chain of
    /// follow-ups keeps its topic.
    pub question: String,
    /// The planner's revised query, when the plan ran.
    pub revised_query: Option<String>,
    /// The dates the question named.
    pub date_hints: Option<MetadataHints>,
    /// The start of the answer, on one line, without citation markers or sources.
    pub answer_gist: String,
}

impl ContextItem {
    /// The context of a finished turn.
    pub fn from_result(question: &str, result: &OrchestrationResult) -> ContextItem {
        ContextItem {
            question: question.trim().to_string(),
            revised_query: result.plan.as_ref().map(|p| p.revised_query.clone()),
            date_hints: date_hints(&question.to_lowercase()),
            answer_gist: gist(&result.answer),
        }
    }
}

/// The answer's first words: no `[n]` markers (they point at citations the gist does not
/// carry), one line, at most [`GIST_CHARS`] characters cut at a word boundary.
fn gist(answer: &str) -> String {
    let text = crate::orchestrator::citations::without_markers(answer);
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut out = String::new();
    for w in words {
        if out.chars().count() + 1 + w.chars().count() > GIST_CHARS {
            out.push('…');
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// One line per earlier turn, oldest first, at most the [`MAX_CONTEXT_ITEMS`] most recent.
pub fn chat_context_summary(items: &[ContextItem]) -> Vec<String> {
    let skip = items.len().saturating_sub(MAX_CONTEXT_ITEMS);
    items[skip..]
        .iter()
        .map(|it| {
            let q = it.question.split_whitespace().collect::<Vec<_>>().join(" ");
            if it.answer_gist.is_empty() {
                format!("Q: {q}")
            } else {
                format!("Q: {q} — A: {}", it.answer_gist)
            }
        })
        .collect()
}

/// A query made standalone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    pub query: String,
    /// The previous question's topic was carried into the query.
    pub carried_topic: bool,
    /// The previous question's dates were carried (the follow-up named none of its own).
    pub carried_dates: bool,
}

impl Resolution {
    fn unchanged(query: &str) -> Resolution {
        Resolution {
            query: query.to_string(),
            carried_topic: false,
            carried_dates: false,
        }
    }
}

/// Words that introduce a date ("in March 2020"), dropped from a topic with the date.
const DATE_PREPOSITIONS: [&str; 12] = [
    "in", "on", "during", "between", "from", "since", "for", "of", "by", "at", "around", "until",
];
/// Words joining two dates ("2008 and 2010").
const DATE_CONNECTORS: [&str; 6] = ["and", "to", "through", "or", "until", ""];
/// Follow-ups about something else in the same frame: the rest is what it is about.
const ABOUT_LEADS: [&[&str]; 7] = [
    &["and", "what", "about"],
    &["and", "how", "about"],
    &["but", "what", "about"],
    &["what", "about"],
    &["how", "about"],
    &["what", "of"],
    &["same", "for"],
];
/// Short follow-ups led by these continue the previous question.
const CONJUNCTION_LEADS: [&str; 4] = ["and", "but", "so", "also"];
const PRONOUN_LEADS: [&str; 8] = [
    "it", "that", "they", "this", "those", "these", "them", "there",
];
/// Asking what came after the previous answer.
const NEXT_PHRASES: [&str; 13] = [
    "and then",
    "then",
    "then what",
    "and then what",
    "what then",
    "what next",
    "and next",
    "what happened next",
    "what happened then",
    "what happened after",
    "what happened after that",
    "and after that",
    "after that",
];

/// One word of a query: as written, and lowercased without surrounding punctuation.
struct Word<'a> {
    raw: &'a str,
    norm: String,
}

fn words(text: &str) -> Vec<Word<'_>> {
    text.split_whitespace()
        .map(|raw| Word {
            raw,
            norm: raw
                .trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase(),
        })
        .collect()
}

/// How a word takes part in a date expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Plain,
    /// Part of the date itself: "March", "15", "2020", "2020-03-15".
    Date,
    /// "in", "between" before a date; "and", "to" between two dates.
    Glue,
}

/// Marks the words that make up date expressions, deciding with [`date_hints`] itself: a word
/// belongs to a date when including it changes the range `date_hints` reads.
fn date_roles(ws: &[Word<'_>]) -> Vec<Role> {
    let mut roles = vec![Role::Plain; ws.len()];
    let hints = |from: usize, to: usize| {
        let text: Vec<&str> = ws[from..=to].iter().map(|w| w.norm.as_str()).collect();
        date_hints(&text.join(" "))
    };
    for i in 0..ws.len() {
        if ws[i].norm.is_empty() || hints(i, i).is_none() {
            continue;
        }
        roles[i] = Role::Date;
        // "March 2020", "March 15, 2020", "15 March 2020": the words that narrow the year.
        let one = hints(i, i);
        let two = (i >= 1).then(|| hints(i - 1, i));
        let three = (i >= 2).then(|| hints(i - 2, i));
        if let (Some(two), Some(three)) = (two, three) {
            // Only when the first word is no date itself ("2008 and 2010" is two dates).
            if three != two && hints(i - 2, i - 2).is_none() {
                roles[i - 1] = Role::Date;
                roles[i - 2] = Role::Date;
                continue;
            }
        }
        if two.is_some_and(|two| two != one) {
            roles[i - 1] = Role::Date;
        }
    }
    // Glue: connectors between two dates, prepositions in front of one.
    for i in 0..ws.len() {
        if roles[i] != Role::Plain {
            continue;
        }
        let next_is_date = roles.get(i + 1) == Some(&Role::Date);
        let prev_is_date = i >= 1 && roles[i - 1] == Role::Date;
        let n = ws[i].norm.as_str();
        if (prev_is_date && next_is_date && DATE_CONNECTORS.contains(&n))
            || (next_is_date && DATE_PREPOSITIONS.contains(&n))
        {
            roles[i] = Role::Glue;
        }
    }
    // "between" two words before the date: "between March 2020 ..." is caught above; a run of
    // two prepositions ("up until") is rare enough to leave.
    roles
}

/// The date expressions of a text as written, each with its preposition ("in March 2020"),
/// joined by "and".
fn date_phrase(ws: &[Word<'_>], roles: &[Role]) -> String {
    let mut phrases: Vec<String> = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for (w, r) in ws.iter().zip(roles) {
        if *r == Role::Plain {
            if !current.is_empty() {
                phrases.push(current.join(" "));
                current.clear();
            }
        } else {
            current.push(w.raw);
        }
    }
    if !current.is_empty() {
        phrases.push(current.join(" "));
    }
    let phrases: Vec<String> = phrases
        .into_iter()
        .map(|p| trim_end_punct(&p).to_string())
        // A lone glue word ("in" not followed by a date) is not a date phrase.
        .filter(|p| words(p).iter().any(|w| date_hints(&w.norm).is_some()))
        .map(|p| {
            let first = words(&p)
                .first()
                .map(|w| w.norm.clone())
                .unwrap_or_default();
            if DATE_PREPOSITIONS.contains(&first.as_str()) {
                p
            } else {
                format!("in {p}")
            }
        })
        .collect();
    phrases.join(" and ")
}

/// The words of a text that are not dates, as written.
fn without_dates(ws: &[Word<'_>], roles: &[Role]) -> String {
    let kept: Vec<&str> = ws
        .iter()
        .zip(roles)
        .filter(|(_, r)| **r == Role::Plain)
        .map(|(w, _)| w.raw)
        .collect();
    trim_end_punct(&kept.join(" ")).to_string()
}

fn trim_end_punct(s: &str) -> &str {
    s.trim_end_matches(|c: char| !c.is_alphanumeric() && c != ')' && c != '"' && c != '\'')
}

/// A date range in words, with its preposition.
fn hints_phrase(h: &MetadataHints) -> String {
    let (s, e) = (h.date_start, h.date_end);
    let whole_years = s.month == 1 && s.day == 1 && e.month == 12 && e.day == 31;
    let month_name = |m: u8| crate::calendar::month_name(u32::from(m)).unwrap_or("");
    if whole_years && s.year == e.year {
        format!("in {}", s.year)
    } else if whole_years {
        format!("between {} and {}", s.year, e.year)
    } else if s == e {
        format!("on {s}")
    } else if s.year == e.year
        && s.month == e.month
        && s.day == 1
        && e.day == crate::corpus::date::days_in_month(e.year, e.month)
    {
        format!("in {} {}", month_name(s.month), s.year)
    } else {
        format!("between {s} and {e}")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// "why?": the previous question, asking for reasons.
    Why,
    /// "and then?": what came after.
    Next,
    /// Everything else that continues the previous question; the number of lead words to drop
    /// and whether the rest is what the question is now "about".
    Continue { lead: usize, about: bool },
}

fn classify(ws: &[Word<'_>], roles: &[Role]) -> Option<Kind> {
    let norms: Vec<&str> = ws
        .iter()
        .map(|w| w.norm.as_str())
        .filter(|n| !n.is_empty())
        .collect();
    let first = *norms.first()?;
    let joined = norms.join(" ");
    if first == "why"
        && norms.len() <= 3
        && norms[1..]
            .iter()
            .all(|w| ["so", "not", "is", "was", "that", "this", "it"].contains(w))
    {
        return Some(Kind::Why);
    }
    if NEXT_PHRASES.contains(&joined.as_str()) {
        return Some(Kind::Next);
    }
    for lead in ABOUT_LEADS {
        if norms.len() >= lead.len() && norms[..lead.len()] == *lead {
            return Some(Kind::Continue {
                lead: lead.len(),
                about: true,
            });
        }
    }
    let short = norms.len() <= SHORT_WORDS;
    if short && CONJUNCTION_LEADS.contains(&first) {
        return Some(Kind::Continue {
            lead: 1,
            about: false,
        });
    }
    if short && PRONOUN_LEADS.contains(&first) {
        return Some(Kind::Continue {
            lead: 0,
            about: false,
        });
    }
    // A bare date: "2021?", "in March 2020".
    let has_date = roles.contains(&Role::Date);
    if has_date && roles.iter().all(|r| *r != Role::Plain) {
        return Some(Kind::Continue {
            lead: 0,
            about: false,
        });
    }
    None
}

/// Rewrites a follow-up into a standalone query using the previous turn; returns a full new
/// question (or any query when there is no previous turn) unchanged.
///
/// Follow-ups: "and what about 2021?", "what about March 2020", "how about the balance sheet?",
/// "why?", "and then?", "what happened next", short queries led by and/but/so/also or by
/// it/that/they/this, and bare dates.
pub fn resolve(query: &str, previous: Option<&ContextItem>) -> Resolution {
    let Some(prev) = previous else {
        return Resolution::unchanged(query);
    };
    let ws = words(query);
    let roles = date_roles(&ws);
    let Some(kind) = classify(&ws, &roles) else {
        return Resolution::unchanged(query);
    };
    let prev_ws = words(&prev.question);
    let prev_roles = date_roles(&prev_ws);
    let topic = without_dates(&prev_ws, &prev_roles);
    let mut prev_dates = date_phrase(&prev_ws, &prev_roles);
    if prev_dates.is_empty() {
        if let Some(h) = &prev.date_hints {
            prev_dates = hints_phrase(h);
        }
    }
    let prev_whole = trim_end_punct(prev.question.trim()).to_string();
    let question_mark = query.trim_end().ends_with('?') || prev.question.trim_end().ends_with('?');
    let finish = |s: String| {
        if question_mark {
            format!("{s}?")
        } else {
            s
        }
    };
    match kind {
        Kind::Why => Resolution {
            query: format!("{prev_whole} reasons why"),
            carried_topic: true,
            carried_dates: !prev_dates.is_empty(),
        },
        Kind::Next => Resolution {
            query: finish(format!("{prev_whole}, and what happened next")),
            carried_topic: true,
            carried_dates: !prev_dates.is_empty(),
        },
        Kind::Continue { lead, about } => {
            // The follow-up's own words after its lead, without its dates.
            let mut skipped = 0;
            let rest: Vec<&str> = ws
                .iter()
                .zip(&roles)
                .filter(|(w, _)| {
                    if skipped < lead && !w.norm.is_empty() {
                        skipped += 1;
                        return false;
                    }
                    true
                })
                .filter(|(_, r)| **r == Role::Plain)
                .map(|(w, _)| w.raw)
                .collect();
            let rest = trim_end_punct(&rest.join(" ")).to_string();
            let extra = match (rest.is_empty(), about) {
                (true, _) => String::new(),
                (false, true) => format!("about {rest}"),
                (false, false) => rest,
            };
            let new_dates = date_phrase(&ws, &roles);
            let (dates, carried_dates) = if new_dates.is_empty() {
                (prev_dates.clone(), !prev_dates.is_empty())
            } else {
                (new_dates, false)
            };
            let parts: Vec<&str> = [topic.as_str(), extra.as_str(), dates.as_str()]
                .into_iter()
                .filter(|p| !p.is_empty())
                .collect();
            if topic.is_empty() || parts.is_empty() {
                // Nothing to carry: the previous question was only a date.
                return Resolution::unchanged(query);
            }
            Resolution {
                query: finish(parts.join(" ")),
                carried_topic: true,
                carried_dates,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Date;

    fn item(q: &str) -> ContextItem {
        ContextItem {
            question: q.to_string(),
            revised_query: None,
            date_hints: date_hints(&q.to_lowercase()),
            answer_gist: String::new(),
        }
    }

    fn r(query: &str, prev: &str) -> Resolution {
        resolve(query, Some(&item(prev)))
    }

    const PREV: &str = "What did the Committee decide in March 2020?";

    #[test]
    fn a_new_year_replaces_the_previous_dates() {
        let res = r("and what about 2021?", PREV);
        assert_eq!(res.query, "What did the Committee decide in 2021?");
        assert!(res.carried_topic && !res.carried_dates);
        assert_eq!(
            r("2021", PREV).query,
            "What did the Committee decide in 2021?"
        );
        assert_eq!(
            r("and in 2019?", PREV).query,
            "What did the Committee decide in 2019?"
        );
    }

    #[test]
    fn a_new_month_replaces_a_year() {
        let res = r("what about March 2020", "What was the target rate in 2019?");
        assert_eq!(res.query, "What was the target rate in March 2020?");
        assert!(res.carried_topic && !res.carried_dates);
        let res = r(
            "what about 15 March 2020",
            "What did they say on August 22, 2000?",
        );
        assert_eq!(res.query, "What did they say in 15 March 2020?");
        assert_eq!(
            date_hints(&res.query.to_lowercase()).map(|h| h.date_start),
            Date::parse("2020-03-15")
        );
    }

    #[test]
    fn without_new_dates_the_previous_ones_are_carried() {
        let res = r("how about the balance sheet?", PREV);
        assert_eq!(
            res.query,
            "What did the Committee decide about the balance sheet in March 2020?"
        );
        assert!(res.carried_topic && res.carried_dates);
        let res = r("and the unemployment rate?", PREV);
        assert_eq!(
            res.query,
            "What did the Committee decide the unemployment rate in March 2020?"
        );
        assert!(res.carried_dates);
        let res = r("did it change?", PREV);
        // Led by "did", not a pronoun: a question of its own.
        assert_eq!(res, Resolution::unchanged("did it change?"));
        let res = r("it was cut again?", PREV);
        assert!(res.carried_topic && res.carried_dates, "{res:?}");
        assert!(res.query.contains("it was cut again") && res.query.contains("March 2020"));
    }

    #[test]
    fn why_asks_for_the_reasons_of_the_previous_question() {
        let res = r("why?", PREV);
        assert_eq!(
            res.query,
            "What did the Committee decide in March 2020 reasons why"
        );
        assert!(res.carried_topic && res.carried_dates);
        assert_eq!(r("Why so?", PREV).query, res.query);
        // A full "why" question stands alone.
        let full = "Why did the Committee cut rates in 2008?";
        assert_eq!(r(full, PREV), Resolution::unchanged(full));
    }

    #[test]
    fn what_happened_next_continues_the_previous_question() {
        for q in ["and then?", "what happened next", "What happened next?"] {
            let res = r(q, PREV);
            assert!(res.carried_topic && res.carried_dates, "{q}");
            assert!(
                res.query
                    .starts_with("What did the Committee decide in March 2020")
                    && res.query.contains("what happened next"),
                "{q}: {}",
                res.query
            );
        }
    }

    #[test]
    fn full_questions_and_first_questions_are_left_alone() {
        for q in [
            "What was the unemployment rate in 2019?",
            "How did the Committee describe inflation?",
            "List all the meetings where the rate was cut",
            "So what exactly did the Committee decide about asset purchases during the spring of 2020 in its statements?",
        ] {
            assert_eq!(r(q, PREV), Resolution::unchanged(q), "{q}");
        }
        assert_eq!(
            resolve("and what about 2021?", None),
            Resolution::unchanged("and what about 2021?")
        );
    }

    #[test]
    fn ranges_and_exact_dates_carry_whole() {
        let res = r(
            "how about inflation?",
            "What changed between 2008 and 2010?",
        );
        assert_eq!(
            res.query,
            "What changed about inflation between 2008 and 2010?"
        );
        let res = r(
            "and the statement?",
            "What did the FOMC decide on August 22, 2000?",
        );
        assert_eq!(
            res.query,
            "What did the FOMC decide the statement on August 22, 2000?"
        );
        // Dates known only from hints (no date words in the question) are written out.
        let mut prev = item("What did the Committee decide?");
        prev.date_hints = date_hints("march 2020");
        let res = resolve("and the balance sheet?", Some(&prev));
        assert_eq!(
            res.query,
            "What did the Committee decide the balance sheet in March 2020?"
        );
        assert!(res.carried_dates);
    }

    #[test]
    fn a_chain_of_follow_ups_keeps_its_topic() {
        let first = r("what about 2021?", PREV);
        let second = r("and 2022?", &first.query);
        assert_eq!(second.query, "What did the Committee decide in 2022?");
    }

    #[test]
    fn context_summary_keeps_the_twenty_most_recent_oldest_first() {
        let items: Vec<ContextItem> = (0..25)
            .map(|i| ContextItem {
                question: format!("question {i}\nwith a newline"),
                revised_query: None,
                date_hints: None,
                answer_gist: format!("answer {i}"),
            })
            .collect();
        let lines = chat_context_summary(&items);
        assert_eq!(lines.len(), MAX_CONTEXT_ITEMS);
        assert_eq!(lines[0], "Q: question 5 with a newline — A: answer 5");
        assert!(lines[19].starts_with("Q: question 24 "));
        assert!(lines.iter().all(|l| !l.contains('\n')));
        assert_eq!(chat_context_summary(&items[..2]).len(), 2);
    }

    #[test]
    fn gists_drop_markers() {
        let g = gist("The rate was cut to 0 to 1/4 percent [1][2]. It stayed there [3].");
        assert_eq!(g, "The rate was cut to 0 to 1/4 percent. It stayed there.");
        let long = "word ".repeat(100);
        let g = gist(&long);
        assert!(g.chars().count() <= GIST_CHARS + 1 && g.ends_with('…'));
        assert_eq!(gist("see [a] and [12x]"), "see [a] and [12x]");
    }
}
