//! The offline rules of inquiry judgement. An input asks about the documents when it names a
//! date or a figure, or when any of its words is outside the vocabulary of conversation (the
//! words of greetings, thanks, farewells, feedback, chatter and questions about the assistant,
//! with English function words): a topic word such as "balance sheet", "TALF" or "sourdough"
//! always goes on to retrieval, so politeness around a question never swallows it, and an
//! off-topic question still ends as the evidence decides. Everything else gets a direct reply,
//! chosen by what the words are about.

use serde::{Deserialize, Serialize};

/// What an input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JudgementKind {
    /// A question about the documents: it goes on to be answered.
    Inquiry,
    Greeting,
    Thanks,
    Farewell,
    /// Praise or complaint about the answers.
    Feedback,
    /// A question about the assistant itself.
    Meta,
    /// Anything else said in passing.
    SmallTalk,
}

/// What a meta question is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetaTopic {
    /// Which documents, how many, which years.
    Documents,
    /// The web, other sources.
    Web,
    /// Other languages.
    Language,
    /// The conversation so far.
    Memory,
    /// Who or what the assistant is.
    Identity,
    /// The confidence shown with an answer.
    Confidence,
    /// How passages are chosen and cited.
    Sources,
    /// Where the questions and documents go.
    Privacy,
    /// What the assistant can do.
    Capabilities,
}

/// English function words: they carry no topic.
const FUNCTION: &[&str] = &[
    "a",
    "an",
    "the",
    "is",
    "are",
    "was",
    "were",
    "be",
    "been",
    "being",
    "am",
    "i",
    "me",
    "my",
    "mine",
    "you",
    "your",
    "yours",
    "u",
    "ur",
    "we",
    "us",
    "our",
    "it",
    "its",
    "that",
    "this",
    "these",
    "those",
    "there",
    "here",
    "so",
    "too",
    "very",
    "really",
    "pretty",
    "quite",
    "just",
    "and",
    "or",
    "but",
    "of",
    "to",
    "in",
    "on",
    "at",
    "for",
    "with",
    "about",
    "from",
    "by",
    "as",
    "do",
    "does",
    "did",
    "done",
    "can",
    "could",
    "would",
    "will",
    "should",
    "may",
    "might",
    "have",
    "has",
    "had",
    "not",
    "no",
    "yes",
    "yeah",
    "yep",
    "nope",
    "what",
    "which",
    "who",
    "whom",
    "how",
    "why",
    "when",
    "where",
    "all",
    "any",
    "some",
    "much",
    "many",
    "more",
    "most",
    "lot",
    "lots",
    "again",
    "now",
    "today",
    "tonight",
    "then",
    "if",
    "please",
    "pls",
    "plz",
    "ok",
    "okay",
    "k",
    "kk",
    "sure",
    "well",
    "oh",
    "ah",
    "um",
    "hmm",
    "also",
    "still",
    "get",
    "got",
    "go",
    "going",
    "doing",
    "one",
    "thing",
    "things",
    "each",
    "next",
    "like",
    "up",
    "out",
    "into",
    "over",
    "than",
    "only",
    "even",
    "bit",
    "little",
    "else",
    "anything",
    "something",
    "everything",
    "d",
    "s",
    "m",
    "re",
    "ll",
    "ve",
    "t",
    "let",
    "let's",
    "lets",
    "want",
    "need",
    "say",
    "said",
    "tell",
    "hear",
    "make",
    "again",
    "ever",
    "always",
    "usually",
    "often",
    "sometimes",
    "kind",
    "sort",
    "type",
    "way",
    "such",
];

/// Greetings, presence checks and chatter.
const GREETING: &[&str] = &[
    "hi",
    "hello",
    "hey",
    "hiya",
    "howdy",
    "yo",
    "greetings",
    "morning",
    "afternoon",
    "evening",
    "there",
    "alive",
    "awake",
    "anyone",
    "home",
];
const THANKS: &[&str] = &[
    "thank",
    "thanks",
    "thx",
    "ty",
    "cheers",
    "appreciate",
    "appreciated",
];
const FAREWELL: &[&str] = &[
    "bye", "goodbye", "later", "see", "soon", "farewell", "care", "night", "done", "finished",
];
const FEEDBACK: &[&str] = &[
    "good",
    "great",
    "nice",
    "cool",
    "awesome",
    "excellent",
    "wonderful",
    "fantastic",
    "brilliant",
    "amazing",
    "perfect",
    "helpful",
    "useful",
    "useless",
    "unhelpful",
    "bad",
    "terrible",
    "awful",
    "wrong",
    "right",
    "correct",
    "incorrect",
    "job",
    "work",
    "works",
    "worked",
    "slow",
    "fast",
    "quick",
    "smart",
    "clever",
    "stupid",
    "dumb",
    "love",
    "hate",
    "impressive",
    "impressed",
    "answer",
    "answers",
    "reply",
    "response",
    "responses",
];
const SMALL_TALK: &[&str] = &[
    "lol",
    "haha",
    "hah",
    "lmao",
    "wow",
    "sorry",
    "oops",
    "never",
    "mind",
    "nevermind",
    "window",
    "tab",
    "chat",
    "typo",
    "test",
    "testing",
    "ping",
    "day",
    "week",
    "weather",
    "fine",
    "happy",
    "bored",
    "tired",
    "busy",
    "mistake",
    "whatever",
    "hm",
    "ha",
    "meant",
];

/// Words about the assistant, by the topic they point to (first match wins).
const META: &[(MetaTopic, &[&str])] = &[
    (
        MetaTopic::Documents,
        &[
            "document",
            "documents",
            "file",
            "files",
            "collection",
            "corpus",
            "access",
            "loaded",
            "indexed",
            "cover",
            "covers",
            "covered",
            "years",
            "available",
            "library",
            "contain",
            "contains",
            "folder",
            "data",
        ],
    ),
    (
        MetaTopic::Web,
        &[
            "web", "internet", "online", "google", "browse", "search", "websites", "website",
        ],
    ),
    (
        MetaTopic::Language,
        &[
            "language",
            "languages",
            "french",
            "english",
            "spanish",
            "german",
            "italian",
            "chinese",
            "japanese",
            "translate",
            "speak",
        ],
    ),
    (
        MetaTopic::Memory,
        &[
            "remember",
            "memory",
            "earlier",
            "previous",
            "previously",
            "before",
            "forget",
            "asked",
        ],
    ),
    (
        MetaTopic::Identity,
        &[
            "chatgpt",
            "gpt",
            "bot",
            "ai",
            "robot",
            "human",
            "person",
            "name",
            "yourself",
            "fathom",
            "assistant",
            "model",
            "llm",
            "claude",
            "gemini",
            "real",
        ],
    ),
    (
        MetaTopic::Confidence,
        &[
            "confidence",
            "confident",
            "score",
            "number",
            "percent",
            "sure",
            "certain",
            "mean",
            "means",
        ],
    ),
    (
        MetaTopic::Sources,
        &[
            "passage",
            "passages",
            "quote",
            "quotes",
            "cite",
            "cites",
            "citation",
            "citations",
            "source",
            "sources",
            "decide",
            "pick",
            "choose",
            "select",
            "rank",
        ],
    ),
    (
        MetaTopic::Privacy,
        &[
            "privacy", "private", "offline", "locally", "local", "cloud", "upload", "uploaded",
        ],
    ),
    (
        MetaTopic::Capabilities,
        &[
            "help",
            "able",
            "capable",
            "abilities",
            "features",
            "question",
            "questions",
            "best",
            "use",
            "ask",
            "know",
            "understand",
            "explain",
            "limits",
        ],
    ),
];

/// The words of an input, lower case, with apostrophes' endings split off ("that's" → "that",
/// "s") and a plural `s` dropped so "documents" meets "document".
fn words(input: &str) -> Vec<String> {
    input
        .to_lowercase()
        .replace(['\u{2019}', '\u{2018}'], "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .flat_map(|w| w.split('\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

fn norm(w: &str) -> &str {
    if w.len() > 3 && w.ends_with('s') && !w.ends_with("ss") {
        &w[..w.len() - 1]
    } else {
        w
    }
}

fn within(list: &[&str], w: &str) -> bool {
    list.iter().any(|v| *v == w || norm(v) == norm(w))
}

fn meta_topic(w: &str) -> Option<MetaTopic> {
    META.iter()
        .find(|(_, list)| within(list, w))
        .map(|(t, _)| *t)
}

/// Whether the word belongs to the vocabulary of conversation.
fn conversational(w: &str) -> bool {
    [FUNCTION, GREETING, THANKS, FAREWELL, FEEDBACK, SMALL_TALK]
        .iter()
        .any(|l| within(l, w))
        || meta_topic(w).is_some()
}

/// Whether the input names a date or a figure ("rates 2008?", "QE2", "what about June?"):
/// something to look up, whatever else it says. "May" is not counted: it is mostly the verb.
pub fn names_date_or_figure(input: &str) -> bool {
    words(input).iter().any(|w| {
        w.chars().any(|c| c.is_ascii_digit())
            || (w != "may" && crate::calendar::month_from_name(w).is_some())
    })
}

/// How the rules judge an input, and for a meta question what it is about.
pub fn judge(input: &str) -> (JudgementKind, Option<MetaTopic>) {
    let ws = words(input);
    if ws.is_empty() || names_date_or_figure(input) {
        return (JudgementKind::Inquiry, None);
    }
    if ws.iter().any(|w| !conversational(w)) {
        return (JudgementKind::Inquiry, None);
    }
    let has = |l: &[&str]| ws.iter().any(|w| within(l, w));
    // The first meta word decides the topic, in the order of META.
    let topic = META
        .iter()
        .find(|(_, list)| ws.iter().any(|w| within(list, w)))
        .map(|(t, _)| *t);
    // A meta word counts when the input asks something of the assistant; "great answer" is
    // feedback, not a question about answers.
    let asks = input.contains('?')
        || ws.first().is_some_and(|w| {
            within(
                &[
                    "what", "which", "how", "can", "could", "do", "does", "are", "who", "why",
                    "will", "would", "is",
                ],
                w,
            )
        });
    let addressed = ws.iter().any(|w| within(&["you", "your", "u", "ur"], w));
    let kind = match topic {
        Some(_) if asks => JudgementKind::Meta,
        _ if has(THANKS) => JudgementKind::Thanks,
        _ if has(FAREWELL) && !has(GREETING) => JudgementKind::Farewell,
        _ if has(GREETING) => JudgementKind::Greeting,
        _ if has(FEEDBACK) => JudgementKind::Feedback,
        _ if has(SMALL_TALK) => JudgementKind::SmallTalk,
        // "What can you do?": a question to the assistant with no other subject.
        _ if asks && addressed => JudgementKind::Meta,
        Some(_) => JudgementKind::Meta,
        None => JudgementKind::SmallTalk,
    };
    let topic = (kind == JudgementKind::Meta).then(|| topic.unwrap_or(MetaTopic::Capabilities));
    (kind, topic)
}

#[cfg(test)]
mod tests {
    use super::*;
    use JudgementKind::*;

    #[test]
    fn greetings_thanks_farewells_and_chatter_get_a_reply() {
        for (input, kind) in [
            ("hello!", Greeting),
            ("Hi there", Greeting),
            ("good evening 👋", Greeting),
            ("thank you so much", Thanks),
            ("thanks, that helps", Thanks),
            ("goodbye", Farewell),
            ("that was a great answer", Feedback),
            ("this is useless", Feedback),
            ("haha", SmallTalk),
            ("oops, never mind", SmallTalk),
        ] {
            assert_eq!(judge(input).0, kind, "{input}");
        }
    }

    #[test]
    fn questions_about_the_assistant_are_meta_with_their_topic() {
        for (input, topic) in [
            ("what can you do?", MetaTopic::Capabilities),
            ("which documents do you have?", MetaTopic::Documents),
            ("What years do your files cover?", MetaTopic::Documents),
            ("Can you browse the internet?", MetaTopic::Web),
            ("do you speak spanish?", MetaTopic::Language),
            ("who are you, are you a bot?", MetaTopic::Identity),
            ("how do you pick the passages you cite?", MetaTopic::Sources),
        ] {
            assert_eq!(judge(input), (Meta, Some(topic)), "{input}");
        }
    }

    #[test]
    fn a_question_wrapped_in_politeness_is_still_an_inquiry() {
        for input in [
            "thanks — and what about 2021?",
            "Hello, what was the rate in 2008?",
            "thanks! and what did they decide about the balance sheet?",
            "hey, can you tell me about forward guidance please",
            "sorry to bother you: why did the Committee pause?",
            "QE3",
            "How do I bake sourdough bread?",
        ] {
            assert_eq!(judge(input).0, Inquiry, "{input}");
        }
    }

    #[test]
    fn apostrophes_and_plurals_do_not_make_topic_words() {
        assert_eq!(judge("that’s all, thanks").0, Thanks);
        assert_eq!(judge("what kinds of questions can I ask?").0, Meta);
    }
}
