//! Offline reading of what a question needs (ARCHITECTURE §8): its intent, its entities (dates,
//! sides, parts, the document series), and the task graph that answers it — one sub-question
//! per side of a comparison, per meeting of a period, per part of a multi-part question. Pure and
//! deterministic; the decompose stage turns the graph through `set_task_graph` like a model's.

use super::routing::{Complexity, IntentType};
use crate::calendar;
use crate::corpus::Date;
use crate::orchestrator::asks::{asks_vote_detail, classify, Asks};
use crate::query::{date_mentions, pointer, question_words, DateMention, MetadataHints};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// A document as the planner sees it: where it is and when.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DatedDocument {
    pub date: Date,
    pub document: String,
}

/// What the planner found in a question.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Entities {
    /// Every date or range the question names, in order, as written.
    pub dates: Vec<(String, MetadataHints)>,
    /// The sides of a comparison (two or more dated sides).
    pub sides: Vec<(String, MetadataHints)>,
    /// The parts of a multi-part question, as written.
    pub parts: Vec<String>,
    /// A document series the question names (`minutes`, `statement`).
    pub series: Option<String>,
}

const COMPARE: [&str; 9] = [
    "compare",
    "comparison",
    "contrast",
    " versus ",
    " vs ",
    " vs. ",
    "difference between",
    "differ",
    "how far apart",
];
const TREND: [&str; 16] = [
    "how did",
    "over the course of",
    "over time",
    "trend",
    "trace",
    "walk me through",
    "evolve",
    "evolved",
    "path of",
    "each meeting",
    "every meeting",
    "each time",
    "wound down",
    "climb",
    "step by step",
    "changed over",
];
const CHANGE: [&str; 14] = [
    "change", "changed", "move", "moved", "raise", "raised", "rais", "cut", "lower", "increase",
    "decrease", "climb", "eas", "tighten",
];
const AGGREGATE: [&str; 12] = [
    "who dissented",
    "which members",
    "which voting members",
    "dissents",
    "dissented",
    "voted against",
    "how many times",
    "how many meetings",
    "list all",
    "list every",
    "in total",
    "every meeting",
];
const CAUSAL: [&str; 6] = [
    "why ",
    "what reasons",
    "what reason",
    "reasoning",
    "explain why",
    "what led",
];
const EXPLORATORY: [&str; 6] = [
    "what did the fomc say about",
    "what did the committee say about",
    "what did fomc participants say",
    "what did the minutes say",
    "tell me about",
    "what did the fomc record",
];
const WH: [&str; 10] = [
    "when", "what", "which", "who", "how", "why", "where", "did", "at", "on",
];
const AUX: [&str; 12] = [
    "did", "does", "do", "was", "were", "is", "are", "has", "had", "will", "would", "could",
];

/// The intent of a question (lower-case), and its parts when it has several.
pub fn intent_of(lower: &str, mentions: &[DateMention]) -> (IntentType, Vec<String>) {
    let padded = format!(" {lower} ");
    let has = |list: &[&str]| list.iter().any(|p| padded.contains(p));
    let distinct_dates = distinct(mentions).len();
    let parts = split_parts(lower);
    if has(&COMPARE) && distinct_dates >= 2 {
        return (IntentType::Comparative, parts);
    }
    // "The final meeting of 2006" is one meeting, not the year.
    let one_meeting = pointer(lower).first.is_some() && distinct_dates <= 1;
    if has(&AGGREGATE) && !one_meeting && mentions.iter().any(|m| spans_months(&m.range, 2)) {
        return (IntentType::Aggregate, parts);
    }
    let changes = CHANGE.iter().any(|c| lower.contains(c));
    let period =
        !one_meeting && (mentions.iter().any(|m| spans_months(&m.range, 2)) || distinct_dates >= 2);
    if period
        && (has(&TREND)
            || (changes
                && (lower.contains("during")
                    || lower.contains("over ")
                    || lower.contains("between")
                    || lower.contains("through"))))
    {
        return (IntentType::Trend, parts);
    }
    if parts.len() >= 2 && !vote_with_detail(&parts) && !about_one_person(&parts) {
        return (IntentType::MultiPart, parts);
    }
    if has(&COMPARE) && distinct_dates >= 2 {
        return (IntentType::Comparative, parts);
    }
    if has(&CAUSAL) || lower.starts_with("why") {
        return (IntentType::Causal, parts);
    }
    if has(&EXPLORATORY) {
        return (IntentType::Exploratory, parts);
    }
    (IntentType::Factual, parts)
}

/// "Who dissented in September 2014, and what did Plosser object to?": the later parts ask
/// what the dissenters wanted or why, which the answer about the vote gives; one question.
fn vote_with_detail(parts: &[String]) -> bool {
    let Some((first, rest)) = parts.split_first() else {
        return false;
    };
    // A part that speaks of the dissenter by pronoun ("what phrase did he suggest?") asks about
    // the dissent too.
    classify(first) == Asks::Vote
        && rest
            .iter()
            .all(|p| asks_vote_detail(p) || speaks_of_a_person(p))
}

/// "What did Fisher expect lower yields to make savers do, and where did he want policymakers
/// to focus instead?": every later part speaks of a person by pronoun, so all ask about the one
/// person the first names; apart, they would no longer say whom they ask about.
fn about_one_person(parts: &[String]) -> bool {
    parts.len() >= 2 && parts[1..].iter().all(|p| speaks_of_a_person(p))
}

/// Whether a part speaks of a person by pronoun ("what phrase did he suggest?").
fn speaks_of_a_person(part: &str) -> bool {
    part.split(|c: char| !c.is_alphanumeric())
        .any(|w| matches!(w, "he" | "she" | "his" | "her" | "him"))
}

/// The mentions, with repeats of the same range dropped.
fn distinct(mentions: &[DateMention]) -> Vec<&DateMention> {
    let mut out: Vec<&DateMention> = Vec::new();
    for m in mentions {
        if !out.iter().any(|o| o.range == m.range) {
            out.push(m);
        }
    }
    out
}

/// Whether a range covers at least `months` calendar months.
fn spans_months(r: &MetadataHints, months: i32) -> bool {
    let a = r.date_start.year * 12 + i32::from(r.date_start.month);
    let b = r.date_end.year * 12 + i32::from(r.date_end.month);
    b - a + 1 >= months
}

/// The parts of a question that asks several things: split at `?` and at `, and` / `; and`
/// followed soon by a question word and a verb (`, and when did …`), never at a bare
/// `, and by how much` (one question with a detail).
pub fn split_parts(lower: &str) -> Vec<String> {
    let mut parts: Vec<String> = Vec::new();
    for piece in lower.split('?').map(str::trim).filter(|p| !p.is_empty()) {
        let mut rest = piece;
        loop {
            let cut = [", and ", "; and ", "; "]
                .iter()
                .filter_map(|sep| rest.find(sep).map(|at| (at, sep.len())))
                .filter(|(at, len)| starts_a_question(&rest[at + len..]))
                .min_by_key(|(at, _)| *at);
            match cut {
                Some((at, len)) => {
                    parts.push(rest[..at].trim().to_string());
                    rest = &rest[at + len..];
                }
                None => {
                    parts.push(rest.trim().to_string());
                    break;
                }
            }
        }
    }
    parts.retain(|p| p.split_whitespace().count() >= 3 && !names_only_a_source(p));
    parts
}

/// "what did the minutes say": a part that only says where to look, not another question.
fn names_only_a_source(part: &str) -> bool {
    const SOURCE: [&str; 17] = [
        "what",
        "did",
        "do",
        "does",
        "the",
        "fomc",
        "committee",
        "minutes",
        "statement",
        "statements",
        "documents",
        "document",
        "say",
        "says",
        "said",
        "according",
        "to",
    ];
    part.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| SOURCE.contains(&w))
}

/// Text that begins a new question: a question word within its first two words and a verb
/// (`did`, `was`, …) within its first four.
fn starts_a_question(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().take(4).collect();
    let wh = words.iter().take(2).any(|w| WH.contains(w));
    let aux = words.iter().any(|w| AUX.contains(w));
    wh && aux
}

/// The document series a question names.
pub fn series_of(lower: &str) -> Option<String> {
    if lower.contains("minutes") {
        Some("minutes".into())
    } else if lower.contains("statement") {
        Some("statement".into())
    } else {
        None
    }
}

/// How complex a question is, for agent selection.
pub fn complexity(intent: IntentType, tasks: usize) -> Complexity {
    match (intent.needs_graph(), tasks) {
        (false, _) => Complexity::Simple,
        (true, 0..=3) => Complexity::Moderate,
        _ => Complexity::Complex,
    }
}

/// The question without its date phrases, framing words and trailing punctuation: the topic a
/// sub-question asks about.
pub fn topic_of(question: &str, mentions: &[DateMention]) -> String {
    let lower = question.to_lowercase();
    let words = question_words(&lower);
    const FRAMING: [&str; 28] = [
        "compare", "contrast", "versus", "vs", "walk", "me", "through", "trace", "how", "did",
        "during", "over", "between", "and", "the", "each", "time", "every", "in", "at", "its",
        "of", "what", "when", "which", "list", "skip", "need",
    ];
    words
        .iter()
        .enumerate()
        .filter(|(i, w)| {
            !mentions.iter().any(|m| (m.words.0..m.words.1).contains(i)) && !FRAMING.contains(w)
        })
        .map(|(_, w)| *w)
        .collect::<Vec<_>>()
        .join(" ")
}

/// `March 21, 2018` for a single day, `March 2018` for a month, `2018` for a year, else
/// `start to end`.
pub fn label_of(r: &MetadataHints) -> String {
    let (s, e) = (r.date_start, r.date_end);
    let month = |d: Date| calendar::month_name(u32::from(d.month)).unwrap_or("");
    if s == e {
        s.long_form()
    } else if s.year == e.year && s.month == 1 && s.day == 1 && e.month == 12 && e.day == 31 {
        s.year.to_string()
    } else if s.year == e.year && s.month == e.month {
        format!("{} {}", month(s), s.year)
    } else {
        format!("{} {} to {} {}", month(s), s.year, month(e), e.year)
    }
}

/// The meeting dates of a period: every date in `r` that has a document, with the document of
/// `series` on that date when there is one.
pub fn meetings_in(
    r: &MetadataHints,
    documents: &[DatedDocument],
    series: Option<&str>,
) -> Vec<(Date, Option<String>)> {
    let mut by_date: BTreeMap<Date, Vec<&str>> = BTreeMap::new();
    for d in documents.iter().filter(|d| r.contains(d.date)) {
        by_date.entry(d.date).or_default().push(&d.document);
    }
    by_date
        .into_iter()
        .map(|(date, docs)| {
            let pick =
                series.and_then(|s| docs.iter().find(|d| d.contains(s)).map(|d| d.to_string()));
            (date, pick)
        })
        .collect()
}

/// Keeps at most `cap` meetings spread evenly over the period (first and last kept).
fn spread<T: Clone>(items: &[T], cap: usize) -> Vec<T> {
    if items.len() <= cap || cap < 2 {
        return items.iter().take(cap.max(1)).cloned().collect();
    }
    (0..cap)
        .map(|k| items[k * (items.len() - 1) / (cap - 1)].clone())
        .collect()
}

/// The offline planner's reading of a question: intent, entities and the task graph (as the
/// JSON a planner returns, for `set_task_graph`), or no graph when one task would do.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub intent: IntentType,
    pub entities: Entities,
    pub graph: Option<Value>,
    /// Why the graph looks as it does, for the react log.
    pub rationale: String,
}

/// Most meetings a sweep over a period runs (the graph's size cap applies on top).
pub const MAX_SWEEP: usize = 12;

/// Reads `question`: its intent and entities, and for intents that need several documents the
/// graph of sub-questions, found from `documents` for periods.
pub fn read_question(question: &str, documents: &[DatedDocument]) -> Reading {
    let lower = question.to_lowercase();
    let mentions = date_mentions(&lower);
    let (intent, parts) = intent_of(&lower, &mentions);
    let series = series_of(&lower);
    let mut entities = Entities {
        dates: mentions.iter().map(|m| (m.text.clone(), m.range)).collect(),
        sides: Vec::new(),
        parts: Vec::new(),
        series: series.clone(),
    };
    let topic = topic_of(question, &mentions);
    let none = |rationale: &str, entities: Entities| Reading {
        intent,
        entities,
        graph: None,
        rationale: rationale.to_string(),
    };
    let task = |id: String,
                q: String,
                label: String,
                dates: Option<MetadataHints>,
                deps: Vec<String>,
                affinity: f64| {
        let mut t = json!({
            "id": id,
            "question": q,
            "tools": ["search", "extract"],
            "depends_on": deps,
            "criteria": {"label": label},
            "affinity": {"search": affinity, "extract": affinity},
        });
        if let Some(d) = dates {
            t["date_start"] = json!(d.date_start.to_string());
            t["date_end"] = json!(d.date_end.to_string());
        }
        if let Some(s) = &series {
            t["series"] = json!(s);
        }
        t
    };
    match intent {
        IntentType::Comparative => {
            let sides = distinct(&mentions);
            entities.sides = sides.iter().map(|m| (m.text.clone(), m.range)).collect();
            let tasks: Vec<Value> = sides
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    let label = label_of(&m.range);
                    task(
                        format!("side{}", i + 1),
                        format!("{topic} ({label})"),
                        label,
                        Some(m.range),
                        vec![],
                        0.9,
                    )
                })
                .collect();
            Reading {
                intent,
                entities,
                graph: Some(json!({"tasks": tasks})),
                rationale: format!("comparison: one task per side ({})", sides.len()),
            }
        }
        IntentType::Trend | IntentType::Aggregate => {
            let Some(period) = mentions
                .iter()
                .map(|m| m.range)
                .reduce(|a, b| MetadataHints {
                    date_start: a.date_start.min(b.date_start),
                    date_end: a.date_end.max(b.date_end),
                })
            else {
                return none("a period was asked about but none is named", entities);
            };
            // Decisions are announced in statements; prefer them unless the question names
            // another series.
            let prefer = series.clone().or_else(|| {
                documents
                    .iter()
                    .any(|d| d.document.contains("statement"))
                    .then(|| "statement".to_string())
            });
            let all = meetings_in(&period, documents, prefer.as_deref());
            if all.len() < 2 {
                return none("the period holds fewer than two meetings", entities);
            }
            let picked = spread(&all, MAX_SWEEP);
            let tasks: Vec<Value> = picked
                .iter()
                .enumerate()
                .map(|(i, (date, doc))| {
                    let day = MetadataHints {
                        date_start: *date,
                        date_end: *date,
                    };
                    let label = date.long_form();
                    let mut t = task(
                        format!("m{:02}", i + 1),
                        format!("{topic} ({label})"),
                        label,
                        Some(day),
                        vec![],
                        0.8,
                    );
                    if let Some(doc) = doc {
                        t["criteria"]["document"] = json!(doc);
                        if let Some(s) = &prefer {
                            t["series"] = json!(s);
                        }
                    }
                    t
                })
                .collect();
            let mut rationale = format!(
                "{}: one task per meeting from {} to {} ({} of {} meetings)",
                intent.as_str(),
                period.date_start,
                period.date_end,
                picked.len(),
                all.len()
            );
            if picked.len() < all.len() {
                rationale.push_str(", spread evenly over the period");
            }
            Reading {
                intent,
                entities,
                graph: Some(json!({"tasks": tasks})),
                rationale,
            }
        }
        IntentType::MultiPart => {
            entities.parts = parts.clone();
            // A later part that leans on an earlier one ("when did it next…", "a second time")
            // waits for it and carries its topic.
            let first_topic = parts
                .first()
                .map(|p| topic_of(p, &date_mentions(p)))
                .unwrap_or_default();
            let tasks: Vec<Value> = parts
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    let own = date_mentions(p);
                    let dates = own
                        .iter()
                        .map(|m| m.range)
                        .reduce(|a, b| MetadataHints {
                            date_start: a.date_start.min(b.date_start),
                            date_end: a.date_end.max(b.date_end),
                        })
                        .or_else(|| {
                            mentions
                                .iter()
                                .map(|m| m.range)
                                .reduce(|a, b| MetadataHints {
                                    date_start: a.date_start.min(b.date_start),
                                    date_end: a.date_end.max(b.date_end),
                                })
                        });
                    let leans = i > 0 && leans_on_earlier(p);
                    let q = if leans {
                        format!("{p} ({first_topic})")
                    } else {
                        p.clone()
                    };
                    let deps = if leans {
                        vec!["part1".to_string()]
                    } else {
                        vec![]
                    };
                    task(
                        format!("part{}", i + 1),
                        q,
                        format!("part {}", i + 1),
                        dates,
                        deps,
                        0.7,
                    )
                })
                .collect();
            Reading {
                intent,
                entities,
                graph: Some(json!({"tasks": tasks})),
                rationale: format!("multi-part: one task per part ({})", parts.len()),
            }
        }
        _ => none("one question: the single-retrieval path", entities),
    }
}

/// A part that refers back: pronouns for an earlier subject, or sequence words.
fn leans_on_earlier(part: &str) -> bool {
    const BACK: [&str; 9] = [
        " it ",
        " they ",
        " that ",
        " next",
        "second time",
        " then",
        " after that",
        " again",
        " its ",
    ];
    let padded = format!(" {part} ");
    BACK.iter().any(|b| padded.contains(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs(dates: &[&str]) -> Vec<DatedDocument> {
        dates
            .iter()
            .flat_map(|d| {
                let date = Date::parse(d).unwrap();
                [
                    DatedDocument {
                        date,
                        document: format!("{d}_statement.md"),
                    },
                    DatedDocument {
                        date,
                        document: format!("{d}_minutes.md"),
                    },
                ]
            })
            .collect()
    }

    fn intent(q: &str) -> IntentType {
        let lower = q.to_lowercase();
        intent_of(&lower, &date_mentions(&lower)).0
    }

    #[test]
    fn intents_of_typical_questions() {
        use IntentType::*;
        for (q, i) in [
            ("What did the FOMC decide in March 2020?", Factual),
            ("Did the FOMC raise, lower, or leave unchanged its federal funds rate target on May 16, 2000, and by how much?", Factual),
            ("How did the target range change during 2018?", Trend),
            ("How did the federal funds rate target change between January and June 2018?", Trend),
            ("How did the target range change from March to December 2018?", Trend),
            ("Compare the decisions of June 2004 and June 2006", Comparative),
            ("When did the Committee announce its 2022 balance-sheet runoff plans, and when did the runoff begin?", MultiPart),
            ("Which members dissented in 2017, and what did they prefer?", Aggregate),
            ("Why did the Committee cut rates in March 2020?", Causal),
            ("What did the FOMC say about inflation expectations in 2021?", Exploratory),
            // A vote and what the dissenter wanted is one question; a vote and another
            // subject is two.
            ("Who voted against in May 2019, and what did she prefer?", Factual),
            ("Who dissented in May 2019, and when did the runoff end?", MultiPart),
            ("The minutes record a dissent in March 2010. Who was it, and what wording did he suggest for the guidance?", Factual),
            // Any way of asking who voted against; the case a dissenter made is its detail.
            ("Which two presidents objected at the November 2016 meeting, and what case did George make?", Factual),
            // Later parts that speak of the first's person by pronoun ask about that person.
            ("In September 2011, what did Fisher expect savers to do, and where did he want policymakers to focus?", Factual),
            ("When did the runoff begin in 2022, and what did the Chair say about it?", MultiPart),
            // The first or last meeting of a year is one meeting.
            ("Who dissented at the final FOMC meeting of 2006, and what was his reasoning?", Causal),
            ("Which two members dissented at the last meeting of 2017?", Factual),
            ("Which members dissented in 2017?", Aggregate),
        ] {
            assert_eq!(intent(q), i, "{q}");
        }
    }

    #[test]
    fn parts_split_only_where_a_new_question_starts() {
        assert_eq!(
            split_parts("when did it begin, and when did it end?"),
            vec!["when did it begin", "when did it end"]
        );
        assert_eq!(split_parts("did it raise rates, and by how much?").len(), 1);
        assert_eq!(
            split_parts("why the pause in may 2019? what did the minutes say").len(),
            1
        );
        assert_eq!(
            split_parts("what was decided? who dissented at that meeting?").len(),
            2
        );
    }

    #[test]
    fn a_comparison_gets_one_task_per_side_with_its_own_dates() {
        let r = read_question(
            "Compare the policy decisions of June 2004 and June 2006",
            &[],
        );
        assert_eq!(r.intent, IntentType::Comparative);
        let tasks = r.graph.unwrap()["tasks"].as_array().unwrap().clone();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[0]["date_start"], "2004-06-01");
        assert_eq!(tasks[1]["date_end"], "2006-06-30");
        assert!(tasks[0]["question"].as_str().unwrap().contains("June 2004"));
        assert!(!tasks[0]["question"].as_str().unwrap().contains("2006"));
    }

    #[test]
    fn a_trend_gets_one_task_per_meeting_found_in_the_index() {
        let d = docs(&[
            "2017-12-13",
            "2018-01-31",
            "2018-03-21",
            "2018-05-02",
            "2019-01-30",
        ]);
        let r = read_question("How did the target range change during 2018?", &d);
        let tasks = r.graph.unwrap()["tasks"].as_array().unwrap().clone();
        let days: Vec<&str> = tasks
            .iter()
            .map(|t| t["date_start"].as_str().unwrap())
            .collect();
        assert_eq!(days, vec!["2018-01-31", "2018-03-21", "2018-05-02"]);
        assert_eq!(
            tasks[0]["series"], "statement",
            "decisions: statements first"
        );
        assert_eq!(tasks[0]["criteria"]["document"], "2018-01-31_statement.md");
        // Too few meetings in the period: no graph.
        let r = read_question("How did the target range change during 2019?", &d);
        assert!(r.graph.is_none());
    }

    #[test]
    fn long_periods_are_spread_evenly() {
        let dates: Vec<String> = (1..=24)
            .map(|m| format!("{}-{:02}-15", 2000 + (m - 1) / 12, (m - 1) % 12 + 1))
            .collect();
        let refs: Vec<&str> = dates.iter().map(String::as_str).collect();
        let r = read_question(
            "How did rates change between January 2000 and December 2001?",
            &docs(&refs),
        );
        let tasks = r.graph.unwrap()["tasks"].as_array().unwrap().clone();
        assert_eq!(tasks.len(), MAX_SWEEP);
        assert_eq!(tasks[0]["date_start"], "2000-01-15");
        assert_eq!(tasks[MAX_SWEEP - 1]["date_start"], "2001-12-15");
        assert!(r.rationale.contains("spread evenly"));
    }

    #[test]
    fn a_later_part_that_refers_back_waits_for_the_first() {
        let r = read_question(
            "When did the FOMC first raise its target range after the crisis, and when did it raise it a second time?",
            &[],
        );
        assert_eq!(r.intent, IntentType::MultiPart);
        let tasks = r.graph.unwrap()["tasks"].as_array().unwrap().clone();
        assert_eq!(tasks.len(), 2);
        assert_eq!(tasks[1]["depends_on"], json!(["part1"]));
        assert!(tasks[1]["question"]
            .as_str()
            .unwrap()
            .contains("target range"));
    }

    #[test]
    fn labels_and_topics() {
        let r = |s: &str, e: &str| MetadataHints {
            date_start: Date::parse(s).unwrap(),
            date_end: Date::parse(e).unwrap(),
        };
        assert_eq!(label_of(&r("2018-03-21", "2018-03-21")), "March 21, 2018");
        assert_eq!(label_of(&r("2018-03-01", "2018-03-31")), "March 2018");
        assert_eq!(label_of(&r("2018-01-01", "2018-12-31")), "2018");
        assert_eq!(
            label_of(&r("2013-12-01", "2014-10-31")),
            "December 2013 to October 2014"
        );
        let q = "How did the target range change during 2018?";
        let lower = q.to_lowercase();
        assert_eq!(topic_of(q, &date_mentions(&lower)), "target range change");
    }
}
