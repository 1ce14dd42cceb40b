//! What a question asks for, read from its wording, and how strongly a sentence offers that: a
//! decision, a reason, a vote, a schedule, an amount, a description, or the policy rate. The
//! rules are about how people ask and how decisions are written (verbs, connectives, units,
//! month names), not about any question or document.

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

fn any(text: &str, cues: &[&str]) -> bool {
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
    let (at, len) = SET_ASIDE
        .iter()
        .find_map(|m| lower.find(m).map(|i| (i, m.len())))?;
    lower[at + len..].split([',', ';', '?', '.']).next()
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
/// in July 2016 about near-term risks"): after the first " about " that follows a verb of saying.
fn said_about(q: &str) -> Option<usize> {
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
pub fn classify(question: &str) -> Asks {
    let lower = question.to_lowercase();
    let asked = match set_aside(&lower) {
        Some(clause) => lower.replacen(clause, " ", 1),
        None => lower.clone(),
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
    ) {
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
                "on what grounds",
                "basis for",
                "what factors",
            ],
        )
    {
        return Asks::Reason;
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
    let policy_rate = any(
        q,
        &[
            "federal funds",
            "funds rate",
            "fed funds",
            "funds target",
            "target range",
            "policy rate",
            "interest rate",
            " rates ",
            " rate move",
            " rate cut",
            " rate hike",
        ],
    ) && !q.contains("discount rate");
    // "By how much did the FOMC cut?": the size of a move of the policy rate, when nothing
    // else is named as what moved.
    let sized_move = any(q, RATE_MOVES)
        && any(
            q,
            &["how much", "how large", "how big", "how far", "what size"],
        )
        && !any(q, OTHER_OBJECTS);
    if policy_rate || sized_move {
        return Asks::Rate;
    }
    // Any other rate (discount, offering, on reserves) is a figure like an amount.
    if any(q, &[" rate ", " rates "]) && any(q, &["what ", "which ", "how high"]) {
        return Asks::Amount;
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

/// Verbs that record a decision.
const DECIDED: &[&str] = &[
    "decided",
    "voted to",
    "voted today",
    "agreed to",
    "agreed that",
    "authorized",
    "approved",
    "established",
    "adopted",
    "directed",
    "announced",
    "will begin",
    "will purchase",
    "will lend",
    "will reduce",
    "will increase",
    "will slow",
    "will conclude",
    "will continue",
    "will maintain",
    "will roll",
    "will reinvest",
    "will provide",
    "intends to",
    "decision",
    "to extend",
    "reaffirm",
    "voted unanimously",
    "will be closing",
    "will close",
];

const REASON_STRONG: &[&str] = &[
    "in light of",
    "because",
    "to support",
    "owing to",
    "in view of",
    "due to",
    "rationale",
    "reason",
    "insurance",
    "as a result of",
    "in order to",
    "in response to",
    "to help",
    "given the",
    "given that",
    "reflecting",
    "to foster",
    "to promote",
    "would help",
    "so as to",
];
const REASON_WEAK: &[&str] = &[
    "concern",
    "judged that",
    "uncertain",
    "risk",
    "since ",
    "to assess",
    "warrant",
    "appropriate",
    "effects of",
    "developments",
];

/// Words of forward guidance: what the Committee expects to do and for how long.
const GUIDANCE: &[&str] = &[
    "believes",
    "anticipates",
    "expects",
    "likely to",
    "can be",
    "will be appropriate",
    "considerable period",
    "extended period",
    "patient",
    "measured",
    "for some time",
    "judges that",
    "will depend",
    "well past",
    "until",
    "take into account",
    "in determining",
    "will assess",
    "will monitor",
];

const VOTE: &[&str] = &[
    "voting against",
    "voted against",
    "dissent",
    "prefer",
    "abstain",
    "objected",
    "opposed",
    "would have favored",
    "would favor",
];

const STARTS_OR_ENDS: &[&str] = &[
    "begin",
    "beginning",
    "start",
    "starting",
    "through",
    "until",
    "by the end of",
    "end of",
    "effective",
    "expire",
    "conclude",
    "complete",
    "finish",
    "commenc",
    "as of",
    "in ",
    "from ",
    "by ",
];

const AMOUNT_UNITS: &[&str] = &["billion", "million", "trillion"];

const DESCRIBES: &[&str] = &[
    "information received",
    "indicates",
    "suggests",
    "has been",
    "have been",
    "remained",
    "remains",
    "remain ",
    "expanding",
    "expanded",
    "weakened",
    "improved",
    "softened",
    "slowed",
    "eased",
    "declined",
    "moderate",
    "solid",
    "strong",
    "elevated",
    "sluggish",
    "firmer",
    "brisk",
    "weak",
    "economic activity",
    "labor market",
    "inflation",
    "spending",
    "job gains",
    "unemployment",
    "growth",
];

/// The subject a description question names, as its content words: "banking system" in "what
/// did the Committee say about the banking system on 3 May 2023?". Empty when none is named.
pub fn subject(question: &str) -> Vec<String> {
    let q = format!(" {} ", question.to_lowercase());
    let Some(at) = said_about(&q).or_else(|| {
        [
            "describe ",
            "characterise ",
            "characterize ",
            " assessment of ",
            " view of ",
        ]
        .iter()
        .find_map(|m| q.find(m).map(|i| i + m.len()))
    }) else {
        return Vec::new();
    };
    const SKIP: &[&str] = &[
        "the", "a", "an", "its", "their", "of", "u", "s", "us", "current", "state",
    ];
    q[at..]
        .split(|c: char| !c.is_alphanumeric())
        .take_while(|w| {
            !matches!(
                *w,
                "in" | "on" | "at" | "during" | "after" | "before" | "when"
            ) && !w.chars().any(|c| c.is_ascii_digit())
                && crate::calendar::month_from_name(w).is_none()
        })
        .filter(|w| !w.is_empty() && !SKIP.contains(w))
        .map(str::to_string)
        .collect()
}

/// Whether a vote question also asks what the dissenters wanted or feared ("and what worried
/// him?", "what did she want the Committee to signal?").
pub fn asks_vote_detail(question: &str) -> bool {
    let q = question.to_lowercase();
    any(
        &q,
        &[
            "prefer", "want", "worr", "concern", "object", "why", "reason", "argu", "favo",
            "signal", "fear", "instead", "rather",
        ],
    )
}

/// Whether a sentence says what someone preferred, feared or argued.
pub fn states_preference(sentence: &str) -> bool {
    any(
        &sentence.to_lowercase(),
        &[
            "prefer",
            "favor",
            "concern",
            "worr",
            "believ",
            "view",
            "judg",
            "emphasiz",
            "object",
            "argu",
            "fear",
            "would have",
            "wanted",
            "saw ",
        ],
    )
}

/// Whether the sentence gives waiting for more information as the course taken: the usual
/// reason for not acting yet ("decided … to wait for some further evidence").
pub fn waits(lower: &str) -> bool {
    any(
        lower,
        &[
            "wait for",
            "to wait",
            "await",
            "further evidence",
            "further information",
            "further confirmation",
            "more evidence",
            "more information",
            "before reaching",
            "for the time being",
            "premature",
        ],
    )
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

/// The sentence without the month of an earlier meeting ("since the Committee met in June"):
/// it dates the information, not what begins or ends.
fn without_past_meetings(sentence: &str) -> String {
    let mut out = sentence.to_string();
    for m in crate::calendar::MONTH_NAMES {
        for lead in ["met in ", "meeting in ", "since "] {
            out = out.replace(&format!("{lead}{m}"), lead);
        }
    }
    out
}

/// Whether the text names a month (the schedule questions' answer): a month's full name,
/// capitalised, so "the Committee may act" names none.
pub fn names_month(sentence: &str) -> bool {
    sentence
        .split(|c: char| !c.is_alphabetic())
        .any(|w| crate::calendar::MONTH_NAMES.contains(&w))
}

/// Whether the text states a figure followed by a unit: `$4 billion`, `2 percent`, `25 basis
/// points`.
fn states_figure(lower: &str) -> bool {
    lower.contains('$')
        || lower
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .any(|w| {
                w[0].chars().any(|c| c.is_ascii_digit())
                    && (w[1].starts_with("percent") || w[1].starts_with("basis"))
            })
}

/// How strongly `sentence` offers what the question asks for, 0 to 1.
pub fn cue(asks: Asks, sentence: &str) -> f64 {
    let s = sentence.to_lowercase();
    let s = s.as_str();
    match asks {
        Asks::Rate => {
            // A dissenter's preferred move is not the Committee's.
            if any(s, VOTE) {
                return 0.0;
            }
            let rate = any(s, &["federal funds rate", "target range", "funds rate"]);
            // A decision is in the past or "today"; "anticipates that … will be appropriate
            // to raise" is guidance about later meetings, not this meeting's move.
            let decided = any(
                s,
                &[
                    "decided",
                    "voted",
                    "today",
                    "reaffirmed",
                    "agreed",
                    "lowered",
                    "raised",
                ],
            );
            let guidance = any(
                s,
                &[
                    "anticipates",
                    "expects",
                    "will be appropriate",
                    "in determining",
                ],
            );
            if guidance && !decided {
                return if rate { 0.2 } else { 0.0 };
            }
            match (rate, decided, states_figure(s)) {
                (true, true, true) => 1.0,
                (true, true, false) | (true, false, true) => 0.6,
                (true, false, false) => 0.3,
                _ => 0.0,
            }
        }
        Asks::Guidance => {
            if any(s, GUIDANCE) {
                1.0
            } else if any(s, &["will", "future", "coming"]) {
                0.4
            } else {
                0.0
            }
        }
        Asks::Decision => {
            if any(s, DECIDED) {
                1.0
            } else if any(
                s,
                &[
                    "the committee will",
                    "will be",
                    "plans to",
                    "expects to",
                    "believes",
                    "anticipates",
                    "judges",
                    "likely to",
                    "can be",
                    "intend",
                ],
            ) {
                0.5
            } else {
                0.0
            }
        }
        Asks::Reason => {
            // Minutes record the reasons for a decision as the members' judgement in the
            // policy discussion ("most members agreed that the outlook had deteriorated by
            // enough to warrant …"); participants' views are the wider outlook discussion.
            let committee = any(
                s,
                &[
                    "members",
                    "the committee's judgment",
                    "the committee judged",
                ],
            );
            let judged = any(
                s,
                &[
                    "agreed",
                    "judged",
                    "concluded",
                    "considered",
                    "concerned",
                    "were seen as",
                    "viewed",
                    "believed",
                    "judgment",
                ],
            );
            // "Members agreed that accommodation should be provided through …" prescribes the
            // means, not the reason.
            let prescribes = any(s, &[" should ", "decided"]);
            // "With the unemployment rate nearing 6-1/2 percent, the Committee has updated its
            // forward guidance": the circumstance opens the sentence of the action.
            let opens_with_circumstance = ["with ", "given ", "as a result", "in view of"]
                .iter()
                .any(|o| s.starts_with(o))
                && s.contains(", the committee");
            if any(s, REASON_STRONG)
                || (committee && judged && !prescribes)
                || opens_with_circumstance
                || waits(s)
            {
                1.0
            } else if any(s, REASON_WEAK) {
                0.5
            } else {
                0.0
            }
        }
        Asks::Vote => {
            if any(s, VOTE) {
                1.0
            } else if any(s, &["voting for", "voted for", "unanimous"]) {
                0.3
            } else {
                0.0
            }
        }
        Asks::Schedule => {
            let month = names_month(&without_past_meetings(sentence));
            let when = any(s, STARTS_OR_ENDS);
            match (month, when) {
                (true, true) => 1.0,
                (true, false) => 0.6,
                (false, true) => 0.2,
                _ => 0.0,
            }
        }
        Asks::Amount => {
            if s.contains('$') && any(s, AMOUNT_UNITS) {
                1.0
            } else if states_figure(s) {
                0.7
            } else if s.chars().any(|c| c.is_ascii_digit()) {
                0.3
            } else {
                0.0
            }
        }
        Asks::Description => {
            let n = DESCRIBES.iter().filter(|c| s.contains(*c)).count();
            (n as f64 / 3.0).min(1.0)
        }
        Asks::Other => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ("When did the taper begin?", Asks::Schedule),
            (
                "In which month would runoff start, per the 2017 plan?",
                Asks::Schedule,
            ),
            ("At what monthly pace did the Fed buy MBS?", Asks::Amount),
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
        ] {
            assert_eq!(classify(q), asks, "{q}");
        }
    }

    #[test]
    fn sentences_offering_the_asked_thing_score_higher() {
        let decision =
            "The Federal Reserve announced today an expansion of its securities lending program.";
        let preamble = "Since the coordinated actions taken in December 2007, the G-10 central banks have continued to work together closely.";
        assert!(cue(Asks::Decision, decision) > cue(Asks::Decision, preamble));
        let reason =
            "The Committee took this action in light of the implications of developments abroad.";
        assert!(cue(Asks::Reason, reason) > cue(Asks::Reason, preamble));
        let vote = "Voting against the action was Jeffrey M. Lacker, who preferred to raise the target range.";
        assert_eq!(cue(Asks::Vote, vote), 1.0);
        assert_eq!(cue(Asks::Vote, decision), 0.0);
        let when = "The Committee will begin balance sheet normalization in October.";
        let no_month = "The Committee will begin balance sheet normalization soon.";
        assert!(cue(Asks::Schedule, when) > cue(Asks::Schedule, no_month));
        let amount =
            "The Committee will purchase up to $300 billion of longer-term Treasury securities.";
        assert!(cue(Asks::Amount, amount) > cue(Asks::Amount, when));
        let rate = "The Committee decided today to lower its target for the federal funds rate by 25 basis points to 2 percent.";
        assert_eq!(cue(Asks::Rate, rate), 1.0);
        let later = "The Committee anticipates that it will be appropriate to raise the target range for the federal funds rate when inflation rises.";
        assert!(cue(Asks::Rate, later) < cue(Asks::Rate, rate) / 2.0);
        assert_eq!(
            cue(Asks::Rate, vote),
            0.0,
            "a dissenter's preference is not the decision"
        );
        let guidance = "The Committee believes that policy accommodation can be maintained for a considerable period.";
        assert_eq!(cue(Asks::Guidance, guidance), 1.0);
        assert_eq!(cue(Asks::Guidance, preamble), 0.0);
        assert!(cue(Asks::Rate, preamble) < 0.5);
        assert_eq!(cue(Asks::Other, rate), 0.0);
    }

    #[test]
    fn why_not_questions_and_waiting_reasons() {
        assert!(asks_why_not("Why did the Fed hold off on cutting in 2019?"));
        assert!(asks_why_not("What was the reason for not raising rates?"));
        assert!(asks_why_not("why didn't they move?"));
        assert!(!asks_why_not("Why did the Committee cut rates?"));
        assert!(waits(
            "the committee decided to wait for further evidence of progress."
        ));
        assert!(!waits("the committee decided to lower the target range."));
    }

    #[test]
    fn the_month_of_an_earlier_meeting_is_no_schedule() {
        let since = "Information received since the Federal Open Market Committee met in June indicates that growth rebounded.";
        let begins =
            "Beginning in September, the Committee will add to its holdings at a slower pace.";
        assert!(cue(Asks::Schedule, begins) > cue(Asks::Schedule, since));
        assert!(cue(Asks::Schedule, since) <= 0.2);
    }

    #[test]
    fn a_vote_question_can_ask_for_the_dissenters_preference() {
        assert!(asks_vote_detail(
            "Who dissented in 2012, and what did he fear?"
        ));
        assert!(!asks_vote_detail("Who dissented in March 2012?"));
        assert!(states_preference(
            "Mr. Lacker preferred to omit the guidance."
        ));
        assert!(!states_preference(
            "Voting against the action was Jeffrey M. Lacker."
        ));
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
        assert_eq!(
            subject("What did the FOMC say in July 2016 about near-term risks?"),
            vec!["near", "term", "risks"]
        );
    }

    #[test]
    fn months_are_names_not_words_like_may_or_march_in_lower_case() {
        assert!(names_month("runoff will begin in June"));
        assert!(names_month("by the end of March 2012"));
        assert!(names_month("starting in May"));
        assert!(!names_month("the Committee may act"));
    }
}
