//! What a question asks for, read from its wording: a decision, a reason, a vote, a schedule, an
//! amount, guidance, a description, or the policy rate. The planner and synthesize both read it
//! (how strongly a sentence offers it is synthesize's `cues.rs`). The rules are about how people
//! ask (verbs, connectives, units, month names), not about any question or document.

use serde::Serialize;

/// What the question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Asks {
    /// The policy rate: its level, or the move and its size.
    Rate,
    /// What was decided ("decided/voted to …" and its figures).
    Decision,
    /// Why ("in light of / because / to support").
    Reason,
    /// Who dissented or abstained, and what they preferred.
    Vote,
    /// When something begins or ends: the month.
    Schedule,
    /// A figure with its unit (amounts, caps, paces, the discount rate).
    Amount,
    /// What the Committee said it expected to do: how long, at what pace, under what conditions
    /// (forward guidance: "a considerable period", "measured", "patient").
    Guidance,
    /// How the Committee characterised the economy, inflation, markets.
    Description,
    /// None of these: topic and similarity alone choose the sentences.
    Other,
}

pub(crate) fn any(text: &str, cues: &[&str]) -> bool {
    cues.iter().any(|c| text.contains(c))
}

/// Words that set a clause aside: "apart from cutting rates, what did the Fed commit to?"
const SET_ASIDE: &[&str] = &[
    "besides ",
    "apart from ",
    "aside from ",
    "other than ",
    "in addition to ",
];

/// The clause a question sets aside ("cutting rates" in "apart from cutting rates, what …"),
/// lower case, up to the next punctuation.
pub fn set_aside(lower: &str) -> Option<&str> {
    // "Leaving Bullard aside, why did the other two dissent?"
    if let Some(rest) = lower.trim_start().strip_prefix("leaving ") {
        if let Some(clause) = rest
            .split(',')
            .next()
            .and_then(|c| c.strip_suffix(" aside"))
        {
            return Some(clause);
        }
    }
    // "Beyond" sets aside only as the opening of a clause before the question ("beyond
    // setting the target, what …?"); "beyond what date did they extend it?" asks for the date.
    let opening = (lower.trim_start().starts_with("beyond ") && lower.contains(','))
        .then(|| (lower.len() - lower.trim_start().len(), "beyond ".len()));
    let (at, len) = opening.or_else(|| {
        SET_ASIDE
            .iter()
            .find_map(|m| lower.find(m).map(|i| (i, m.len())))
    })?;
    lower[at + len..].split([',', ';', '?', '.']).next()
}

/// The clause a question opens by conceding ("although the target range was left alone" in
/// "although the target range was left alone, to what level …?"), up to its comma.
fn conceded(lower: &str) -> Option<&str> {
    let t = lower.trim_start();
    ["although ", "though ", "even though "]
        .iter()
        .any(|o| t.starts_with(o))
        .then(|| t.split(',').next())
        .flatten()
        .filter(|clause| clause.len() < t.len())
}

/// Who a question asks how many of did something: "participants" or "members" ("how many
/// participants favoured keeping the target range where it was?"). Such a count of people is
/// no policy-rate question, however it names the rate: it is read like "how many", for a figure.
pub fn counted_people(question: &str) -> Option<&'static str> {
    let q = question.to_lowercase();
    ["participants", "members"].into_iter().find(|who| {
        q.contains(&format!("how many {who}")) || q.contains(&format!("how many of the {who}"))
    })
}

/// Whether a question asks how sure someone was of something ("how sure was the Committee
/// about …?", "how confident …?").
pub fn asks_sureness(question: &str) -> bool {
    let q = question.to_lowercase();
    any(
        &q,
        &["how sure", "how certain", "how confident", "how uncertain"],
    )
}

/// Whether a question asks who requested an action ("which Reserve Banks had asked for the
/// discount rate cut?", "whose requests did the Board approve?"): the banks, not the rate.
pub fn asks_requesters(question: &str) -> bool {
    let q = question.to_lowercase();
    let words = crate::query::question_words(&q);
    let which = words
        .iter()
        .any(|w| matches!(*w, "which" | "whose" | "who"));
    which
        && (q.contains("whose request")
            || (q.contains("bank") && any(&q, &["request", "asked for", "ask for"])))
}

/// Whether a question asks what markets expected or priced ("what size of rate cut had
/// financial markets put odds on?", "what path were investors pricing?").
pub fn asks_market_view(question: &str) -> bool {
    let q = question.to_lowercase();
    any(
        &q,
        &[
            "financial markets",
            "market participants",
            "investors",
            "futures",
            "market pricing",
            "markets expect",
            "markets priced",
            "markets were pricing",
        ],
    )
}

/// Moves of the policy rate, named by their verb ("by how much did they cut?").
const RATE_MOVES: &[&str] = &[
    " cut",
    " hike",
    " raise",
    " lower",
    " tighten",
    " ease",
    " eased",
    " increase",
    " reduce",
];

/// What else a verb of moving can move: purchases, holdings, facilities …
const OTHER_OBJECTS: &[&str] = &[
    "purchase",
    "securities",
    "holdings",
    "balance sheet",
    "discount rate",
    "swap",
    "facilit",
    "asset",
    "treasur",
    "mbs",
    "mortgage",
    "reserve requirement",
    "primary credit",
    "offering rate",
    "loan",
    "runoff",
    "cap",
    "program",
];

/// Subjects of "what did they say about …" that are instruments or actions, not the economy.
const POLICY_SUBJECTS: &[&str] = &[
    "purchase",
    "securities",
    "holdings",
    "balance sheet",
    "swap",
    "facilit",
    "program",
    "press conference",
    "guidance",
    "plan",
    "rate",
    "runoff",
    "taper",
    "reinvest",
];

/// Where the subject of "what did they say about …" begins, also with words between ("say
/// in July 2016 about near-term risks"): after the first " about " that follows a verb of
/// saying; failing that, a subject named before the verb, after the document it is said in
/// ("the statement on inflation - what did it say?").
fn said_about(q: &str) -> Option<usize> {
    said_after_verb(q).or_else(|| said_before_verb(q))
}

/// "… statement on inflation - what did it say?": the subject named before the verb of saying,
/// after the document it is said in.
fn said_before_verb(q: &str) -> Option<usize> {
    let verb = [" say", " said"].iter().filter_map(|v| q.find(v)).min()?;
    [
        "statement on ",
        "minutes on ",
        "statement about ",
        "minutes about ",
    ]
    .iter()
    .filter_map(|m| q[..verb].find(m).map(|i| i + m.len()))
    .min()
}

/// The subject of "what did they say about …", after the verb of saying.
fn said_after_verb(q: &str) -> Option<usize> {
    let verb = [
        " say ",
        " said ",
        " note ",
        " noted ",
        " mention ",
        " write ",
        " state ",
    ]
    .iter()
    .filter_map(|v| q.find(v).map(|i| i + v.len()))
    .min()?;
    // "say on 3 May 2023 about …": a date is not the subject; the subject is what follows.
    let rest = &q[verb - 1..];
    [" about ", " on ", " regarding "]
        .iter()
        .flat_map(|a| rest.match_indices(a).map(move |(i, _)| i + a.len()))
        .filter(|&i| {
            let next = rest[i..].split_whitespace().next().unwrap_or("");
            !next.is_empty()
                && !next.chars().any(|c| c.is_ascii_digit())
                && crate::calendar::month_from_name(next).is_none()
        })
        .min()
        .map(|i| verb - 1 + i)
}

/// What `question` asks for. The order matters: "why did they hold rates" is a reason, "who
/// voted against the hike" a vote, "when did the runoff begin" a schedule, before the rate and
/// amount words they also contain count. A clause the question sets aside ("apart from cutting
/// rates, …") does not count.
/// Whether `q` (lower case, padded) asks what a minority of members or participants preferred.
fn minority_preference(q: &str) -> bool {
    let some = any(
        q,
        &[
            "minority",
            " any participant",
            " any member",
            " any policymakers",
            " few participants",
            " few members",
            " couple of participants",
            " couple of members",
            " one participant",
            " one member",
            " some participants",
            " some members",
            " several participants",
            " several members",
        ],
    );
    let preferred = any(
        q,
        &[
            "favour",
            "favor",
            "prefer",
            " want",
            "would have liked",
            "pushed for",
            "push for",
            "argued for",
            "argue for",
            "called for",
        ],
    );
    // "By how much did several participants want the pace reduced?" asks for the figure.
    let figure = any(
        q,
        &[
            "how much",
            "how many",
            "how large",
            "how big",
            "what size",
            "what pace",
        ],
    );
    some && preferred && !figure
}

/// Whether `q` (lower case, padded) asks for a rate other than the policy rate by name ("what
/// primary credit (discount) rate did the Board approve alongside the fed funds hike?"): the
/// question word is followed within a few words by that rate, so the policy rate it also names
/// only dates the question.
fn asks_other_rate(q: &str) -> bool {
    let words: Vec<&str> = q.split_whitespace().collect();
    words.iter().enumerate().any(|(i, w)| {
        matches!(*w, "what" | "which")
            && words
                .get(i + 1..(i + 5).min(words.len()))
                .is_some_and(|next| {
                    let next = next.join(" ");
                    [
                        "primary credit",
                        "discount",
                        "reserve balances",
                        "excess reserve",
                    ]
                    .iter()
                    .any(|r| next.contains(r))
                })
    })
}

pub fn classify(question: &str) -> Asks {
    let lower = question.to_lowercase();
    let asked = match set_aside(&lower) {
        Some(clause) => lower.replacen(clause, " ", 1),
        None => lower.clone(),
    };
    // "Although the target range was left alone, to what level did the Board move the rate on
    // reserve balances?": an opening concession is the question's setting, not what it asks.
    let asked = match conceded(&asked) {
        Some(clause) => asked.replacen(clause, " ", 1),
        None => asked,
    };
    let q = format!(
        " {} ",
        asked
            .replace(['?', ',', ';', '!'], " ")
            .replace(['\u{2019}', '\''], "'")
    );
    let q = q.as_str();
    if any(
        q,
        &[
            "dissent",
            "voted against",
            "vote against",
            "voting against",
            "abstain",
            "who voted",
            "opposed",
            "objected",
            "broke ranks",
            "voted no",
            "no vote",
        ],
    ) || asks_who_voted_for(question)
        || asks_tally(question)
    {
        return Asks::Vote;
    }
    if q.trim_start().starts_with("why")
        || any(
            q,
            &[
                " why ",
                "rationale",
                "reason",
                "what led",
                " led the ",
                " led members",
                " led most",
                "motivat",
                "what concern",
                "justif",
                " because",
                "purpose of",
                "what prompted",
                " behind ",
                "what drove",
                "what explain",
                "explanation",
                "what caused",
                "attribut",
                " grounds",
                "worry",
                "basis for",
                "what factors",
                "what worried",
                "argument",
                "warranting",
                "to achieve",
                " explain ",
                " worried about",
                " concerned about",
                " wary",
                " hope",
                "accomplish",
                "meant to",
                "what made",
                "weighed on",
                "weigh on",
                "weighing on",
                "blame",
                " driving ",
                "drove",
                "driven by",
                "source of",
                " point to",
                " cite ",
                " cited ",
                // What they waited for is why they had not acted yet.
                " need to see",
                " needed to see",
                " want to see",
                " wanted to see",
                // What the Committee credited, or said would help, is a cause.
                " credited ",
                " credit for ",
                " fomc credit ",
                " committee credit ",
                " help bring",
                " case for ",
                " what case ",
            ],
        )
    {
        return Asks::Reason;
    }
    // "Which guidance did a minority of participants favour?", "did any member argue for a
    // bigger cut?": what some members preferred to the decision is the vote's other side, which
    // the minutes give as a dissent of members they do not name.
    if minority_preference(q) {
        return Asks::Vote;
    }
    if q.trim_start().starts_with("when ")
        || any(
            q,
            &[
                "what month ",
                "which month ",
                "by when",
                "what date ",
                "which date ",
                "from when",
                "until when",
                "by what month",
                " when did ",
                " when will ",
                " when would ",
                " when was ",
                " when were ",
                " when is ",
                " when does ",
                " when had ",
                " expire",
                "take effect",
                "took effect",
                "start date",
                "end date",
            ],
        )
    {
        return Asks::Schedule;
    }
    // "How long would the repo operations continue?": until a month, for an operation or a
    // facility; for the policy rate or the stance it is guidance.
    if q.contains("how long")
        && (any(q, OTHER_OBJECTS) || any(q, &["operations", "arrangements", "lines"]))
    {
        return Asks::Schedule;
    }
    if any(
        q,
        &[
            "guidance",
            "how long",
            "pace at which",
            "future path",
            "expect to",
            "signal",
            " weigh",
            "take into account",
            "depend on",
            "would determine",
            "what condition",
            "under what condition",
            "hinge",
            "contingent on",
            "conditional on",
            "what would it take",
            "before it would",
        ],
    ) {
        return Asks::Guidance;
    }
    // "What did they say about business investment when they cut rates?": the subject said
    // about is the economy, whatever action dates it.
    if said_about(q).is_some() {
        let about = subject(q).join(" ");
        if !about.is_empty() && !any(&about, POLICY_SUBJECTS) {
            return Asks::Description;
        }
    }
    // "How did the FOMC contrast consumers and businesses when it cut rates?", "what view of
    // the outlook did the cut support?": asked to describe, the rate move only dates the
    // question.
    if any(
        q,
        &[
            "describe",
            "characteri",
            " contrast",
            "what view",
            "which view",
        ],
    ) && !any(q, &["how much", "what target"])
    {
        return Asks::Description;
    }
    // "The interest rate on reserve balances", "the primary credit rate": another rate, set by
    // the Board beside the decision, is a figure like an amount (as is the discount rate, below).
    let other_rate = any(
        q,
        &[
            "reserve balances",
            "on reserves",
            "excess reserve",
            "primary credit",
        ],
    );
    let policy_rate = (any(
        q,
        &[
            "federal funds",
            "funds rate",
            "fed funds",
            "funds target",
            "target range",
            "policy rate",
        ],
    ) || (any(
        q,
        &[
            "interest rate",
            " rates ",
            " rate move",
            " rate cut",
            " rate hike",
        ],
    ) && !other_rate))
        && !q.contains("discount rate")
        && !asks_other_rate(q)
        && counted_people(q).is_none();
    // "By how much did the FOMC cut?": the size of a move of the policy rate, when nothing
    // else is named as what moved.
    let sized_move = any(q, RATE_MOVES)
        && any(
            q,
            &["how much", "how large", "how big", "how far", "what size"],
        )
        && !any(q, OTHER_OBJECTS);
    // "What size of cut had financial markets put odds on?": what markets expected is an
    // amount they priced, not the Committee's decision.
    if (policy_rate || sized_move) && !asks_market_view(q) {
        return Asks::Rate;
    }
    // Any other rate (discount, offering, on reserves) is a figure like an amount; "more rate
    // increases" asks about moves, not a figure.
    let rate_moves = [" rate ", " rates "].iter().any(|r| {
        q.match_indices(r).any(|(at, m)| {
            RATE_MOVES
                .iter()
                .any(|v| q[at + m.len() - 1..].starts_with(v))
        })
    });
    if any(q, &[" rate ", " rates "]) && !rate_moves && any(q, &["what ", "which ", "how high"]) {
        return Asks::Amount;
    }
    // "How sure was the Committee about the size of the effects …?" asks how the Committee
    // judged something (a description), not for the size itself.
    if asks_sureness(q) {
        return Asks::Description;
    }
    if any(
        q,
        &[
            "how much",
            "how large",
            "how big",
            "how many",
            "what amount",
            "what pace",
            "monthly pace",
            "what size",
            " cap ",
            " caps ",
            "discount rate",
            "what level",
            "to what level",
            "by how much",
            "inflation rate",
            "what percentage",
            "what rate",
            " size",
            "maximum",
            "ceiling",
            " limit",
        ],
    ) {
        return Asks::Amount;
    }
    if any(
        q,
        &[
            "describe",
            "characteri",
            " view ",
            " assess",
            " see the ",
            "how did members",
            "how did participants",
            "what did the committee say about the economy",
            " outlook",
            "how was the economy",
            "how strong",
            "how weak",
            " read the ",
            " size up",
            " take on ",
        ],
    ) {
        return Asks::Description;
    }
    // "What did the FOMC say about inflation?": a characterisation; about an instrument or an
    // action ("about its purchase program"), what was decided about it.
    if let Some(at) = said_about(q) {
        return if any(&q[at..], POLICY_SUBJECTS) {
            Asks::Decision
        } else {
            Asks::Description
        };
    }
    if any(
        q,
        &[
            "decid",
            "decision",
            "adopt",
            "announc",
            "agree",
            "approv",
            "voted to",
            " do ",
            " do with",
            "what new",
            "what change",
            "guidance",
            " plan",
            "commit",
            "endorse",
            "establish",
            "set up",
            "launch",
            "begin",
            "start",
            "say it would",
        ],
    ) {
        return Asks::Decision;
    }
    Asks::Other
}

/// The subject a description question names, as its content words: "banking system" in "what
/// did the Committee say about the banking system on 3 May 2023?". Empty when none is named.
pub fn subject(question: &str) -> Vec<String> {
    let q = format!(" {} ", question.to_lowercase());
    let Some(at) = said_about(&q)
        .or_else(|| {
            [
                "describe ",
                "characterise ",
                "characterize ",
                " assessment of ",
                " view of ",
            ]
            .iter()
            .find_map(|m| q.find(m).map(|i| i + m.len()))
        })
        .or_else(|| described_subject(&q))
    else {
        return Vec::new();
    };
    const SKIP: &[&str] = &[
        "the", "a", "an", "its", "their", "of", "u", "s", "us", "current", "state",
    ];
    // The subject ends where the question goes on ("… on inflation - what did it say?").
    let rest = &q[at..];
    let rest = rest.split(" - ").next().unwrap_or(rest);
    let rest = rest.split(['?', ';', ':']).next().unwrap_or(rest);
    rest.split(|c: char| !c.is_alphanumeric())
        .take_while(|w| {
            !matches!(
                *w,
                "in" | "on"
                    | "at"
                    | "during"
                    | "after"
                    | "before"
                    | "when"
                    | "described"
                    | "characterized"
                    | "characterised"
            ) && !w.chars().any(|c| c.is_ascii_digit())
                && crate::calendar::month_from_name(w).is_none()
        })
        .filter(|w| !w.is_empty() && !SKIP.contains(w))
        .map(str::to_string)
        .collect()
}

/// Where the subject of "how was inflation described …?" begins: after "how was" (or "how
/// were"), when a verb of describing follows it.
fn described_subject(q: &str) -> Option<usize> {
    let at = [" how was ", " how were "]
        .iter()
        .find_map(|m| q.find(m).map(|i| i + m.len()))?;
    [" described", " characterized", " characterised"]
        .iter()
        .any(|v| q[at..].contains(v))
        .then_some(at)
}

/// Whether a clause a question sets aside ("apart from cutting rates", "beyond the emergency cut
/// of 3 March 2020", "besides holding the rate") names the policy rate's decision: a verb of
/// moving it, holding it or setting its target, with nothing else to move ("besides raising
/// the pace of purchases" is about purchases).
pub fn names_rate_decision(clause: &str) -> bool {
    let c = format!(" {} ", clause.to_lowercase());
    (any(&c, RATE_MOVES) || any(&c, &[" hold", " target", " rates "])) && !any(&c, OTHER_OBJECTS)
}

/// Whether a policy-rate question asks about a move ("did they raise, lower or leave it
/// unchanged", "by how much did they cut"), not only the level.
pub fn asks_move(question: &str) -> bool {
    let q = format!(" {} ", question.to_lowercase());
    any(&q, RATE_MOVES)
        || any(
            &q,
            &["how much", "unchanged", " change", " move", " do with"],
        )
}

/// Whether `question` asks who voted for the decision ("which members voted for the half-point
/// cut?", "who voted in favour of holding rates?"): the roll call of those voting for it answers.
pub fn asks_who_voted_for(question: &str) -> bool {
    let q = question.to_lowercase();
    // "Which members backed the action?" asks the same; "what were the members who backed the
    // cut trying to achieve?" asks their reason: "who" asks only where it opens the question
    // or a clause.
    let words = crate::query::question_words(&q);
    // "Which (FOMC) members / policymakers backed …": the people, then the verb, within the
    // three words after "which".
    let which_backed = words.iter().enumerate().any(|(i, w)| {
        *w == "which"
            && (i + 2..(i + 4).min(words.len()))
                .any(|j| BACKING.contains(&words[j]) && BACKERS.contains(&words[j - 1]))
    });
    let who_backed = BACKING.iter().any(|verb| {
        q.match_indices(&format!("who {verb}"))
            .any(|(i, _)| opens_clause(&q[..i]))
    });
    // "List (or name) the members who supported the action": a request for names, so "who" needs
    // not open the clause; "why did the members who supported it …" stays a reason.
    let list_backers = words
        .first()
        .is_some_and(|w| ["list", "name", "identify"].contains(w))
        && BACKING
            .iter()
            .any(|verb| q.contains(&format!("who {verb}")));
    [
        "voted for",
        "voted in favo",
        "voting for",
        "list the voters",
        "name the voters",
        "who were the voters",
        "voters in favo",
        // "Which members cast votes in favor of the action?"
        "votes in favo",
        "cast votes for",
        // "Who voted yes on the policy action?"
        "voted yes",
        "voting yes",
        "vote yes",
    ]
    .iter()
    .any(|v| q.contains(v))
        || which_backed
        || who_backed
        || list_backers
}

/// Verbs that ask who backed an action.
const BACKING: [&str; 2] = ["backed", "supported"];
/// Who a question may ask backed an action. Not participants or presidents: most of them do not
/// vote, and "which participants supported a bigger cut?" asks a view, not the roll call.
const BACKERS: [&str; 5] = [
    "members",
    "voters",
    "officials",
    "policymakers",
    "governors",
];

/// Whether what comes before a word (`before`) leaves it opening the question or a clause.
fn opens_clause(before: &str) -> bool {
    before
        .trim_end()
        .chars()
        .last()
        .is_none_or(|c| matches!(c, ':' | ',' | ';' | '?' | '-' | '\u{2014}'))
}

/// Whether `question` asks how the vote went rather than why anyone dissented: its count,
/// whether it was unanimous or backed by every voter, how it was taken ("what was the vote
/// count?", "was the cut backed by every voter?", "how was the vote taken?", "did any member
/// dissent?"). The vote's own sentence or its roll call answers; who backed it is
/// [`asks_who_voted_for`].
pub fn asks_tally(question: &str) -> bool {
    let q = format!(
        " {} ",
        question.to_lowercase().replace(['?', ',', ';', '!'], " ")
    );
    any(
        &q,
        &[
            "vote count",
            " tally",
            "how was the vote",
            "vote taken",
            "vote was taken",
            "what was the vote",
            "how did the committee vote",
            "how did the fomc vote",
            "how did members vote",
            "how did the members vote",
            "how did it vote",
            "how did they vote",
            "unanimous",
            "every voter",
            "every voting member",
            "any member dissent",
            "anyone dissent",
            "any dissent",
            "any dissents",
            "any voter",
        ],
    )
}

/// Whether a vote question also asks what the dissenters wanted, feared or thought ("and what
/// worried him?", "what did she want the Committee to signal?", "how did he read inflation
/// expectations?").
pub fn asks_vote_detail(question: &str) -> bool {
    let q = question.to_lowercase();
    any(
        &q,
        &[
            "prefer",
            "want",
            "wish",
            "worr",
            "concern",
            "object",
            "why",
            "reason",
            "argu",
            "favo",
            "signal",
            "fear",
            "instead",
            "rather",
            "grounds",
            "basis",
            "what case",
            "case for",
            "think",
            "thought",
            " view",
            " read ",
            "justif",
            "wording",
            "weigh",
            "emphas",
            "danger",
            " risk",
        ],
    )
}

/// Whether a question asks what was new at a meeting ("what new pledge", "added", "for the
/// first time"): what the meeting's documents say that the previous meeting's did not.
pub fn asks_new(question: &str) -> bool {
    let q = format!(" {} ", question.to_lowercase().replace("new york", ""));
    any(
        &q,
        &[
            " new ",
            " newly ",
            " added ",
            " add ",
            "first time",
            "introduc",
            "reword",
        ],
    )
}

/// Whether a question asks what the Committee would do next, not what it did ("what did it
/// promise about further easing?", "what did it say it would do next?", "what would it look for
/// at its coming meetings?", "what flexibility did it signal?").
pub fn asks_what_next(question: &str) -> bool {
    let q = format!(" {} ", question.to_lowercase());
    // "Further rate increases", "additional firming", "more cuts": moves still to come.
    let more_moves = [" further ", " more ", " additional "].iter().any(|m| {
        q.match_indices(m).any(|(i, _)| {
            let rest = q[i + m.len()..]
                .trim_start_matches("rate ")
                .trim_start_matches("policy ");
            [
                "increase",
                "hike",
                "firming",
                "tightening",
                "easing",
                "cut",
                "reduction",
            ]
            .iter()
            .any(|n| rest.starts_with(n))
        })
    });
    more_moves
        || any(
            &q,
            &[
                " promis",
                " do next",
                " would do",
                "future policy",
                "further action",
                "coming meetings",
                "flexib",
                "ready to",
            ],
        )
}

/// Whether a question asks what wording the Committee took out of its statement ("which phrase
/// did it drop from the statement?", "what did it take out of its statement?"): a verb of
/// removal and a word for wording, so that "the drop in oil prices" is not one.
pub fn asks_removal(question: &str) -> bool {
    let q = format!(" {} ", question.to_lowercase());
    let removes = [
        " drop",
        " remov",
        " delet",
        " take out",
        " took out",
        " taken out",
        " omit",
        " strike",
        " struck",
        " retire",
    ]
    .iter()
    .any(|v| {
        // "The drop in oil prices" is a fall, not a removal.
        q.match_indices(v)
            .any(|(i, _)| !q[..i].ends_with(" the") && !q[..i].ends_with(" a"))
    });
    removes && WORDING.iter().any(|w| q.contains(w))
}

/// Whether a question asks when the next meeting was to be held ("when was the following FOMC
/// meeting scheduled?", "what date was the next meeting set for?"): the next meeting named, and
/// a word of holding or dating it. "Tapering could begin if approved at the following meeting"
/// asks about tapering, not the meeting.
pub fn asks_next_meeting_date(question: &str) -> bool {
    let q = format!(" {} ", question.to_lowercase());
    let words: Vec<&str> = q
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    // "The following FOMC (Federal Open Market Committee) meeting": the name may stand between.
    let name = [
        "fomc",
        "federal",
        "open",
        "market",
        "committee",
        "s",
        "policy",
    ];
    let names_next = words.iter().enumerate().any(|(i, w)| {
        let meeting = |j: usize| {
            words
                .get(j..)
                .and_then(|rest| rest.iter().find(|m| !name.contains(m)))
                .is_some_and(|m| m.starts_with("meeting"))
        };
        match *w {
            "next" | "following" | "subsequent" => meeting(i + 1),
            "meeting" => matches!(words.get(i + 1), Some(&"following" | &"after")),
            _ => false,
        }
    });
    names_next
        && any(
            &q,
            &[
                " held",
                " hold",
                "schedul",
                "take place",
                " date",
                "convene",
                " set for",
            ],
        )
}

/// Words for a piece of wording: what a removal is of, in a question and in the minutes'
/// account of it ("remove the sentence indicating …", "no longer be characterized as …").
pub const WORDING: &[&str] = &[
    "statement",
    "language",
    "phrase",
    "word",
    "sentence",
    "paragraph",
    "reference",
    "description",
    "characteriz",
    "characteris",
    "\"",
    "\u{201c}",
];

/// Whether a question names several things at once ("household spending, business investment
/// and housing", "the pace of growth and the stance of fiscal policy"). An "and" that opens a
/// second question ("how did Hoenig see the risks, and what did he favour?") joins no things.
pub fn names_several(question: &str) -> bool {
    let q = question.to_lowercase();
    let words: Vec<&str> = q.split_whitespace().collect();
    words.windows(2).any(|w| {
        w[0] == "and"
            && !matches!(
                w[1],
                "what"
                    | "how"
                    | "why"
                    | "who"
                    | "when"
                    | "which"
                    | "where"
                    | "did"
                    | "does"
                    | "do"
                    | "was"
                    | "were"
                    | "is"
                    | "are"
                    | "had"
                    | "has"
            )
    })
}

/// Whether a question asks about what was expected to come ("how did the FOMC describe the
/// outlook?", "what did it anticipate for growth?"), not how things stood.
pub fn asks_outlook(question: &str) -> bool {
    let q = question.to_lowercase();
    any(
        &q,
        &[
            "outlook",
            "expect",
            "anticipat",
            "project",
            "forecast",
            "future",
            "ahead",
            "coming",
            " will ",
            " would ",
        ],
    )
}

/// Whether a question asks about the Committee's own goal, objective, stance or policy ("how
/// did the FOMC characterise its inflation goal?"), not about the economy.
pub fn asks_own_policy(question: &str) -> bool {
    let q = format!(" {} ", question.to_lowercase());
    any(
        &q,
        &[
            " goal",
            " objective",
            " stance",
            " policy",
            " policies",
            " approach",
        ],
    )
}

/// The months a question asks about a period of, lower-case: "principal payments received
/// during September" gives "september", "payments received in July and August" both months.
/// What was to happen in those months, not from the next. Empty when none is asked about: a
/// month named only as the meeting's ("in September 2018") is no period.
pub fn period_months(question: &str) -> Vec<String> {
    let q = question.to_lowercase();
    let words: Vec<&str> = q.split_whitespace().collect();
    let month_at = |i: usize| {
        let word = words
            .get(i)?
            .trim_end_matches(|c: char| !c.is_alphanumeric());
        crate::calendar::month_from_name(word)
            .and_then(crate::calendar::month_name)
            .map(str::to_lowercase)
    };
    for i in 1..words.len() {
        let Some(month) = month_at(i) else { continue };
        if words[i - 1] == "during" {
            return vec![month];
        }
        // "in July and August": two months joined name a period; "in July" alone is most
        // often the meeting's own month.
        if words[i - 1] == "in" && words.get(i + 1) == Some(&"and") {
            if let Some(second) = month_at(i + 2) {
                return vec![month, second];
            }
        }
    }
    Vec::new()
}

/// The months a question asks for a figure of, capitalised: "what unemployment rate for May
/// did the June 2003 minutes report?" gives "May", "how high had inflation got in April?"
/// "April". A month followed by a year ("the June 2003 minutes", "in May 2020") or by the
/// meeting's documents ("the July FOMC meeting") names the meeting, not the data.
pub fn data_months(question: &str) -> Vec<&'static str> {
    let words: Vec<&str> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate().skip(1) {
        let Some(month) = crate::calendar::month_from_name(w).and_then(crate::calendar::month_name)
        else {
            continue;
        };
        let before = words[i - 1].to_lowercase();
        let joined =
            before == "and" && i >= 2 && crate::calendar::month_from_name(words[i - 2]).is_some();
        let after = words
            .get(i + 1)
            .map(|w| w.to_lowercase())
            .unwrap_or_default();
        let names_meeting = after.chars().all(|c| c.is_ascii_digit()) && !after.is_empty()
            || matches!(
                after.as_str(),
                "meeting" | "fomc" | "minutes" | "statement" | "directive" | "committee"
            );
        if (matches!(before.as_str(), "for" | "in") || joined)
            && !names_meeting
            && !out.contains(&month)
        {
            out.push(month);
        }
    }
    out
}

/// Whether a question asks why something was *not* done ("why did they hold off", "for not
/// raising rates", "why not yet").
pub fn asks_why_not(question: &str) -> bool {
    let q = format!(" {} ", question.to_lowercase().replace('\u{2019}', "'"));
    any(
        &q,
        &[
            " not ",
            "n't ",
            "hold off",
            "held off",
            "holding off",
            "refrain",
            " wait",
            " pause",
            " delay",
            " yet ",
            " hold steady",
            " stand pat",
        ],
    )
}

/// Whether a question asks for a meeting's policy decision as a whole ("what policy decision
/// did members reach in May 2017?", "what policy decisions did members agree on?") or its
/// decision on the rate ("what did members decide about the target range?"): the sentence
/// setting the rate with its figure is the decision. Not so when it names another instrument
/// ("what policy action did they take on the swap lines?") or sets the rate aside ("besides
/// the policy action, …").
pub fn asks_policy_decision(question: &str) -> bool {
    let q = format!(" {} ", question.to_lowercase());
    let whole = any(&q, &[" policy decision", " policy action"]);
    let of_rate = any(&q, &[" decide", " agree", " vote"])
        && any(
            &q,
            &["federal funds rate", "target range", "funds rate target"],
        );
    (whole || of_rate) && !any(&q, OTHER_OBJECTS) && set_aside(&q).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_months_a_figure_is_asked_for_are_told_from_the_meetings() {
        assert_eq!(
            data_months("What unemployment rate for May did the June 2003 FOMC minutes report?"),
            vec!["May"]
        );
        assert_eq!(
            data_months("june 2005 fomc minutes - what pace were housing starts running at in April and May?"),
            vec!["April", "May"]
        );
        assert!(data_months("What did the FOMC decide in May 2020?").is_empty());
        assert!(
            data_months("How did the unemployment rate move before the July FOMC meeting?")
                .is_empty()
        );
    }

    #[test]
    fn voting_yes_asks_who_voted_for() {
        assert!(asks_who_voted_for(
            "who voted yes on the December 19, 2018 policy action?"
        ));
        assert!(!asks_who_voted_for(
            "Why did the members vote against the December 2018 action?"
        ));
    }

    #[test]
    fn a_meetings_policy_decision_is_told_from_a_decision_about_something_else() {
        assert!(asks_policy_decision(
            "What policy decisions did members agree on at the March 2012 FOMC meeting?"
        ));
        assert!(asks_policy_decision(
            "What did members decide about the federal funds target range in June 2023?"
        ));
        assert!(!asks_policy_decision(
            "What policy action did the FOMC take on the swap lines in May 2010?"
        ));
        assert!(!asks_policy_decision(
            "Besides the policy action, what did the Committee agree to say about inflation?"
        ));
        assert!(!asks_policy_decision(
            "What did members agree the statement should say about the recovery?"
        ));
    }

    #[test]
    fn a_question_naming_several_things_is_told_from_one_asking_two_questions() {
        assert!(names_several(
            "How did the October 2012 statement characterise household spending, business investment and housing?"
        ));
        assert!(names_several(
            "How did the FOMC describe the pace of growth and the stance of fiscal policy?"
        ));
        assert!(!names_several(
            "How did Hoenig see the risks, and what approach did he favour instead of a cut?"
        ));
        assert!(!names_several(
            "How was the labor market described in March 2022?"
        ));
        // Commas alone (a date's, a clause's) name no several things.
        assert!(!names_several(
            "According to the minutes of the October 30-31, 2007 meeting, how did Hoenig see the risks, and what did he favour?"
        ));
    }

    #[test]
    fn a_description_of_conditions_is_told_from_one_of_the_outlook_or_the_committees_own() {
        let now = "march 2022 fomc statement - how was the labor market described?";
        assert!(!asks_outlook(now) && !asks_own_policy(now));
        assert!(asks_outlook(
            "How did the FOMC describe the outlook for growth in May 2026?"
        ));
        assert!(asks_own_policy(
            "How did the FOMC characterise its inflation goal in March 2017?"
        ));
    }

    #[test]
    fn the_months_a_question_asks_a_period_of() {
        assert_eq!(
            period_months(
                "Above what amounts were payments received during September to be rolled over?"
            ),
            ["september"]
        );
        assert_eq!(
            period_months("what was reinvested during sept. 2018?"),
            ["september"]
        );
        assert_eq!(
            period_months("What cap applied to payments received in July and August?"),
            ["july", "august"]
        );
        // A month named only as the meeting's is no period asked about.
        assert!(period_months("What did the FOMC decide in September 2018?").is_empty());
        assert!(period_months("What did the FOMC decide in July?").is_empty());
        assert!(period_months("What happened during the meeting?").is_empty());
    }

    #[test]
    fn how_sure_asks_for_a_judgement_and_how_many_people_for_a_count() {
        let q = "In its July 2023 statement, how sure was the Committee about the size of the \
                 effects of tighter credit conditions on the economy?";
        assert_eq!(classify(q), Asks::Description);
        // Without the sureness, the size is what is asked.
        assert_eq!(
            classify("What was the size of the effects of tighter credit conditions?"),
            Asks::Amount
        );
        let q = "Per the minutes of the September 2019 meeting, how many participants favoured \
                 keeping the target range where it was?";
        assert_eq!(classify(q), Asks::Amount);
        assert_eq!(
            classify("Where did the September 2019 meeting keep the target range?"),
            Asks::Rate
        );
    }

    #[test]
    fn a_question_can_ask_when_the_next_meeting_was() {
        for q in [
            "When was the following FOMC meeting scheduled, according to the minutes of the September 16, 2008 meeting?",
            "june 2004 fomc minutes: what date was the next meeting scheduled for?",
            "At the December 2002 meeting, when did the Committee agree to hold its next meeting?",
            "When was the FOMC meeting following the March 28, 2006 one scheduled to take place?",
            "when was the following fomc federal open market committee meeting scheduled",
        ] {
            assert!(asks_next_meeting_date(q), "{q}");
        }
        for q in [
            "According to the minutes of the September 2021 meeting, when could tapering get under way if it were approved at the following meeting?",
            "What did the September 2014 statement say would happen at the next meeting?",
            "When was the rate increase scheduled in 2015?",
        ] {
            assert!(!asks_next_meeting_date(q), "{q}");
        }
    }

    #[test]
    fn a_question_can_ask_what_was_new() {
        assert!(asks_new("What new pledge did the FOMC add in June 2022?"));
        assert!(asks_new(
            "Which risk did the statement mention for the first time?"
        ));
        assert!(asks_new(
            "How did the FOMC reword its guidance in March 2014?"
        ));
        assert!(!asks_new("Why did the FOMC hold rates in June 2022?"));
        assert!(!asks_new(
            "What did the minutes say about the New York Fed?"
        ));
    }

    #[test]
    fn a_clause_set_aside_can_name_the_rate_decision() {
        assert!(names_rate_decision("cutting rates"));
        assert!(names_rate_decision("the emergency cut of 3 march 2020"));
        assert!(names_rate_decision("holding the rate"));
        assert!(names_rate_decision(
            "setting the new target range on 16 december 2008"
        ));
        assert!(!names_rate_decision("agency debt and mbs"));
        assert!(!names_rate_decision("raising the pace of purchases"));
        assert!(!names_rate_decision("the soft jobs data"));
    }

    #[test]
    fn a_clause_set_aside_is_found() {
        assert_eq!(
            set_aside("apart from cutting rates, what did the fed commit to?"),
            Some("cutting rates")
        );
        assert_eq!(
            set_aside("beyond setting the new target range on 16 december 2008, what pledge?"),
            Some("setting the new target range on 16 december 2008")
        );
        assert_eq!(
            set_aside("leaving bullard aside, why did the other two dissent?"),
            Some("bullard")
        );
        // Asking what lies past a date, "beyond" sets nothing aside.
        assert_eq!(
            set_aside("beyond what date did the board decline to extend the facility?"),
            None
        );
        assert_eq!(
            set_aside("the board did not extend the facility beyond which date?"),
            None
        );
    }

    #[test]
    fn a_move_is_asked_about() {
        assert!(asks_move(
            "Did the FOMC raise, lower, or leave unchanged its target, and by how much?"
        ));
        assert!(asks_move("What did the Fed do with rates in March 2022?"));
        assert!(asks_move("by how much did they cut?"));
        assert!(!asks_move(
            "What target for the federal funds rate did the FOMC announce?"
        ));
    }

    #[test]
    fn a_question_can_ask_how_the_vote_went() {
        for q in [
            "what was the vote count on the FOMC statement of June 2026?",
            "How was the vote on the FOMC's policy action of 23 March 2020 taken?",
            "Was the July 2019 cut backed by every voter?",
            "Did any member dissent from the directive adopted on March 23, 2020?",
            "how did the Committee vote on its Statement on Longer-Run Goals?",
        ] {
            assert!(asks_tally(q), "{q}");
            assert_eq!(classify(q), Asks::Vote, "{q}");
        }
        // Who dissented and why is the dissent's own question.
        assert!(!asks_tally("Who dissented in September 2019, and why?"));
        assert!(!asks_tally(
            "What did the two dissenters prefer in June 2019?"
        ));
        // Who backed it asks for the roll call of those voting for; how many backed it does not.
        assert!(asks_who_voted_for(
            "Which members backed the policy action at the late-January 2026 meeting?"
        ));
        assert!(!asks_who_voted_for("Was the cut backed by every voter?"));
        for q in [
            "Which policymakers backed the monetary policy action announced on 7 November 2024?",
            "which FOMC members supported the December 2018 decision",
            "list the voters for the december 2018 fomc policy decision",
            "List the members who supported the policy action at the January 2009 meeting.",
            "Which Committee members cast votes in favor of the action in May 2025?",
        ] {
            assert!(asks_who_voted_for(q), "{q}");
        }
        assert!(!asks_who_voted_for(
            "Which view backed by several members did the minutes record?"
        ));
        assert!(!asks_who_voted_for(
            "Which participants supported a 50 basis point cut in July 2019?"
        ));
        // Asked what those who backed it wanted, the question asks a reason.
        let why = "What were the members who backed the September 2019 rate cut trying to achieve?";
        assert!(!asks_who_voted_for(why) && !asks_tally(why));
        let why = "Why did the members who supported the October 2019 rate cut favour it?";
        assert!(!asks_who_voted_for(why) && !asks_tally(why));
    }

    #[test]
    fn who_requested_an_action_asks_for_the_banks() {
        for q in [
            "Nov 2004 discount rate hike to 3 percent - which Reserve Bank boards had asked for it?",
            "In September 2005, whose requests did the Board of Governors approve?",
            "may 2001 discount rate cut: the board approved requests from which reserve banks?",
            "Which Federal Reserve Banks requested the discount rate reduction in January 2008?",
        ] {
            assert!(asks_requesters(q), "{q}");
        }
        for q in [
            "What discount rate did the Board approve in November 2004?",
            "Which banks' funding did the minutes discuss in March 2008?",
            "What did the Committee ask the staff for in January 2012?",
        ] {
            assert!(!asks_requesters(q), "{q}");
        }
    }

    #[test]
    fn questions_are_classified_by_what_they_ask() {
        for (q, asks) in [
            ("Who dissented in September 2019?", Asks::Vote),
            (
                "Which members voted against the hike in June 2022?",
                Asks::Vote,
            ),
            ("Why did the Fed cut rates in March 2020?", Asks::Reason),
            (
                "What was the rationale for the January 2019 pause?",
                Asks::Reason,
            ),
            ("What led the Committee to keep buying bonds?", Asks::Reason),
            // Worry and purpose ask for a reason, whatever rate move dates the question.
            (
                "What was the Fed worried about when it raised rates in May 2006?",
                Asks::Reason,
            ),
            (
                "What did the FOMC hope its cut would accomplish?",
                Asks::Reason,
            ),
            (
                "What made members wary of changing the statement?",
                Asks::Reason,
            ),
            // A cause asked for by what it did: it weighed on, drove, or is blamed for.
            (
                "What event weighed on the decision to stand pat in June 2016?",
                Asks::Reason,
            ),
            ("What did the Fed say was driving inflation?", Asks::Reason),
            (
                "What did the FOMC blame for the slowdown in 2003?",
                Asks::Reason,
            ),
            // What they waited for, credited, or said would help, or the case they made.
            (
                "What did members still need to see before raising rates in 2015?",
                Asks::Reason,
            ),
            (
                "What did the Committee credit for the pickup in hiring in 2021?",
                Asks::Reason,
            ),
            (
                "What did the FOMC expect would help bring unemployment down in 2012?",
                Asks::Reason,
            ),
            (
                "What case did the hawks make at the March 2001 meeting?",
                Asks::Reason,
            ),
            (
                "How did the FOMC read the economy in 2000?",
                Asks::Description,
            ),
            // What was said about the economy, dated by a rate move, is a characterisation.
            (
                "What did the FOMC say about consumer spending when it cut rates in 2001?",
                Asks::Description,
            ),
            (
                "What did the FOMC say about the funds rate in December 2008?",
                Asks::Rate,
            ),
            ("When did the taper begin?", Asks::Schedule),
            (
                "In which month would runoff start, per the 2017 plan?",
                Asks::Schedule,
            ),
            ("At what monthly pace did the Fed buy MBS?", Asks::Amount),
            (
                "what did the march 2023 statement say about the need for more rate increases?",
                Asks::Decision,
            ),
            (
                "What target range did the FOMC set in May 2022?",
                Asks::Rate,
            ),
            ("Did the Fed change interest rates in 2019?", Asks::Rate),
            (
                "What did the FOMC do with the funds rate in April 2008?",
                Asks::Rate,
            ),
            (
                "How much Treasury debt did it plan to buy in 2010?",
                Asks::Amount,
            ),
            (
                "What discount rate did the Board approve in 2001?",
                Asks::Amount,
            ),
            (
                "What interest rate on reserve balances and primary credit rate did the Board set in June 2023?",
                Asks::Amount,
            ),
            (
                "What did the FOMC do with the interest rate in April 2008?",
                Asks::Rate,
            ),
            ("What was the monthly cap on runoff?", Asks::Amount),
            (
                "How did the Committee characterise inflation in 2023?",
                Asks::Description,
            ),
            (
                "How did the FOMC describe the labor market?",
                Asks::Description,
            ),
            (
                "What did the Committee decide on March 11, 2008?",
                Asks::Decision,
            ),
            ("What new facility did the Fed establish?", Asks::Decision),
            ("Tell me about 2015", Asks::Other),
            (
                "What guidance did the FOMC give in May 2004?",
                Asks::Guidance,
            ),
            (
                "How long could policy stay accommodative, per the August 2003 statement?",
                Asks::Guidance,
            ),
            // Written for these rules, not taken from an evaluation set.
            (
                "Besides lowering rates, what did the Committee pledge in October 2008?",
                Asks::Decision,
            ),
            ("What drove the weaker spending in 2011?", Asks::Reason),
            (
                "How did the Committee characterise spending when it raised rates in 2005?",
                Asks::Description,
            ),
            (
                "Which view of the economy did the 2007 rate cut rest on?",
                Asks::Description,
            ),
            // A worry or grounds named beside the rate still ask why.
            (
                "What was the Committee's chief worry when it left rates alone in 2006?",
                Asks::Reason,
            ),
            (
                "What economic grounds did they give for holding the funds rate in 2019?",
                Asks::Reason,
            ),
            (
                "what was behind the softer job market, per the minutes",
                Asks::Reason,
            ),
            ("By how much did they hike in July 2023?", Asks::Rate),
            (
                "By how much did they increase purchases of MBS?",
                Asks::Amount,
            ),
            (
                "What did the Committee say about household spending in 2012?",
                Asks::Description,
            ),
            (
                "What did the FOMC say about its purchase program in 2012?",
                Asks::Decision,
            ),
            (
                "What rate on excess reserves did the Board set in 2016?",
                Asks::Amount,
            ),
            ("the maximum size of the new lending program?", Asks::Amount),
            (
                "How long were the swap arrangements to stay in place in 2008?",
                Asks::Schedule,
            ),
            (
                "What did the FOMC say in May 2012 about household spending?",
                Asks::Description,
            ),
            ("Who broke ranks in March 2012?", Asks::Vote),
            (
                "What did the FOMC say on 3 May 2023 about the banking system?",
                Asks::Description,
            ),
            // Another rate asked for by name, beside the hike that dates it.
            (
                "march 2018: what primary credit (discount) rate did the Board of Governors approve alongside the fed funds hike?",
                Asks::Amount,
            ),
            // Who voted for the decision is a vote question too.
            (
                "Which FOMC members voted for the half-point cut in September 2024?",
                Asks::Vote,
            ),
            (
                "who voted in favour of holding rates at the july 2025 fomc meeting?",
                Asks::Vote,
            ),
            // An opening concession sets the scene; what follows is asked.
            (
                "Although the target range was left alone in late January 2020, to what level did the Board move the interest rate on reserve balances?",
                Asks::Amount,
            ),
            // What a minority preferred is the vote's other side, unless a figure is asked.
            (
                "Which alternative forward guidance did a minority of participants favour in September 2020?",
                Asks::Vote,
            ),
            (
                "Did any participants favour tapering faster than the illustrative path in September 2021?",
                Asks::Vote,
            ),
            (
                "By how much per meeting did several participants want the pace of purchases reduced in January 2014?",
                Asks::Amount,
            ),
            (
                "At the August 2001 FOMC meeting, did any member argue for holding rates or cutting by more than 25 basis points?",
                Asks::Vote,
            ),
        ] {
            assert_eq!(classify(q), asks, "{q}");
        }
    }

    #[test]
    fn a_description_names_its_subject() {
        assert_eq!(
            subject("What did the Committee say about the housing sector on 5 June 2012?"),
            vec!["housing", "sector"]
        );
        assert_eq!(
            subject("How did the FOMC describe consumer spending in June 2015?"),
            vec!["consumer", "spending"]
        );
        assert!(subject("What was decided in 2015?").is_empty());
        // Named before the verb: "how was X described", "the statement on X - what did it say?".
        assert_eq!(
            subject("How was inflation described in the June 2016 FOMC statement?"),
            vec!["inflation"]
        );
        let on = "December 2011 FOMC statement on inflation - what did it say?";
        assert_eq!(subject(on), vec!["inflation"]);
        assert_eq!(classify(on), Asks::Description);
        // Another rate moved by how much is an amount, not the policy rate's move.
        assert_eq!(
            classify("june 2022 minutes: by how much was the primary credit rate raised?"),
            Asks::Amount
        );
        assert_eq!(
            subject("What did the FOMC say in July 2016 about near-term risks?"),
            vec!["near", "term", "risks"]
        );
    }
}
