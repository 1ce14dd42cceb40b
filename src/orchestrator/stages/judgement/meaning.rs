//! Judgement by meaning: the input's sentence vector against short examples of each kind of
//! thing said to an assistant (greetings, thanks, feedback, questions about the assistant …)
//! and of questions about a topic (the documents' subjects, or anything else in the world).
//! Word lists cannot enumerate everything people say to an assistant ("you saved me hours",
//! "who built you?"); the embedding model already knows these belong together.
//!
//! Only for the model the examples were calibrated with ([`CALIBRATED`]); with any other
//! embedder, or none, the word rules alone decide. An input reads as something said to the
//! assistant when its nearest examples of that kind are closer, by [`MARGIN`], than its
//! nearest questions; the nearest example names the kind and, for a meta question, its topic.

use super::rules::{JudgementKind, MetaTopic};
use crate::index::dense::dot;
use crate::index::{IndexError, Retriever, SentenceVectors};
use crate::orchestrator::examples::top_mean;

/// The model whose vectors [`MARGIN`] was set with (a prefix of its model id).
pub const CALIBRATED: &str = "all-MiniLM-L6-v2:";

/// How much closer (mean cosine of the [`K`] nearest) the examples of talk must be than the
/// examples of questions. Set on `eval/judgement-tune.jsonl` and the other tune sets: talk led
/// by 0.12 or more, questions by at most 0.06.
pub const MARGIN: f32 = 0.08;

/// How many nearest examples of each side are averaged.
const K: usize = 3;

/// What an example stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    Talk(JudgementKind, Option<MetaTopic>),
    Question,
}

use JudgementKind::{Farewell, Feedback, Greeting, Meta, SmallTalk, Thanks};
use Label::{Question, Talk};

const fn meta(t: MetaTopic) -> Label {
    Talk(Meta, Some(t))
}

/// The examples. Written for this purpose, not taken from any evaluation set.
pub const EXAMPLES: &[(Label, &str)] = &[
    (Talk(Greeting, None), "hello"),
    (Talk(Greeting, None), "hi there"),
    (Talk(Greeting, None), "hey"),
    (Talk(Greeting, None), "good morning"),
    (Talk(Greeting, None), "good afternoon to you"),
    (Talk(Greeting, None), "hello, how are you today?"),
    (Talk(Greeting, None), "how's it going?"),
    (Talk(Greeting, None), "nice to meet you"),
    (Talk(Greeting, None), "hey, anybody there?"),
    (Talk(Greeting, None), "howdy friend"),
    (Talk(Greeting, None), "salut, ça va?"),
    (Talk(Greeting, None), "hola"),
    (Talk(Thanks, None), "thank you"),
    (Talk(Thanks, None), "thanks a lot, that was helpful"),
    (Talk(Thanks, None), "much appreciated"),
    (Talk(Thanks, None), "thank you, you have been a great help"),
    (Talk(Thanks, None), "cheers for that"),
    (Talk(Thanks, None), "that helped me a lot, thanks"),
    (Talk(Farewell, None), "goodbye"),
    (Talk(Farewell, None), "bye for now"),
    (Talk(Farewell, None), "talk to you later"),
    (
        Talk(Farewell, None),
        "that's all for today, have a nice day",
    ),
    (Talk(Farewell, None), "catch you next time"),
    (Talk(Farewell, None), "I'm done for the day, good night"),
    (Talk(Farewell, None), "gotta go"),
    (Talk(Feedback, None), "that answer was wrong"),
    (Talk(Feedback, None), "this is not what I asked for"),
    (Talk(Feedback, None), "great job"),
    (Talk(Feedback, None), "that was really helpful"),
    (Talk(Feedback, None), "this is so slow"),
    (Talk(Feedback, None), "you're amazing"),
    (Talk(Feedback, None), "I'm annoyed, this keeps failing"),
    (Talk(Feedback, None), "you are useless"),
    (Talk(Feedback, None), "that made no sense"),
    (Talk(Feedback, None), "well done, very clear"),
    (Talk(Feedback, None), "the last reply was confusing"),
    (Talk(Feedback, None), "you took ages to respond"),
    (Talk(SmallTalk, None), "how is your day?"),
    (Talk(SmallTalk, None), "lovely day outside"),
    (Talk(SmallTalk, None), "lol"),
    (Talk(SmallTalk, None), "I'm bored"),
    (Talk(SmallTalk, None), "tell me a joke"),
    (Talk(SmallTalk, None), "do you like music?"),
    (Talk(SmallTalk, None), "what's your favourite colour?"),
    (Talk(SmallTalk, None), "I'm so tired today"),
    (Talk(SmallTalk, None), "oops, typo"),
    (Talk(SmallTalk, None), "never mind, forget it"),
    (Talk(SmallTalk, None), "just testing"),
    (Talk(SmallTalk, None), "I had coffee this morning"),
    (meta(MetaTopic::Identity), "who are you?"),
    (meta(MetaTopic::Identity), "who made you?"),
    (meta(MetaTopic::Identity), "are you a human or a machine?"),
    (meta(MetaTopic::Identity), "what are you exactly?"),
    (
        meta(MetaTopic::Identity),
        "which company created this assistant?",
    ),
    (meta(MetaTopic::Identity), "what language model powers you?"),
    (meta(MetaTopic::Identity), "what's your name?"),
    (meta(MetaTopic::Documents), "what documents do you have?"),
    (
        meta(MetaTopic::Documents),
        "which years does your collection cover?",
    ),
    (meta(MetaTopic::Documents), "how many files are loaded?"),
    (meta(MetaTopic::Documents), "what sources can you read?"),
    (meta(MetaTopic::Web), "can you search the internet?"),
    (meta(MetaTopic::Web), "do you have access to online news?"),
    (meta(MetaTopic::Web), "are you able to look at websites?"),
    (meta(MetaTopic::Language), "can you answer in German?"),
    (
        meta(MetaTopic::Language),
        "do you understand other languages?",
    ),
    (
        meta(MetaTopic::Memory),
        "do you remember what I asked before?",
    ),
    (meta(MetaTopic::Memory), "will you keep our conversation?"),
    (meta(MetaTopic::Memory), "can you recall our last session?"),
    (
        meta(MetaTopic::Confidence),
        "how reliable are your answers?",
    ),
    (
        meta(MetaTopic::Confidence),
        "what does the confidence score mean?",
    ),
    (
        meta(MetaTopic::Confidence),
        "should I believe everything you say?",
    ),
    (
        meta(MetaTopic::Sources),
        "how do you choose which passages to cite?",
    ),
    (meta(MetaTopic::Sources), "where do your answers come from?"),
    (meta(MetaTopic::Sources), "why did you quote that document?"),
    (meta(MetaTopic::Privacy), "is my data private?"),
    (
        meta(MetaTopic::Privacy),
        "do you send my questions to the cloud?",
    ),
    (
        meta(MetaTopic::Privacy),
        "does this run locally on my computer?",
    ),
    (meta(MetaTopic::Capabilities), "what can you do?"),
    (meta(MetaTopic::Capabilities), "how do I use you?"),
    (
        meta(MetaTopic::Capabilities),
        "what kinds of questions should I ask?",
    ),
    (
        meta(MetaTopic::Capabilities),
        "how can I get better answers from you?",
    ),
    (
        meta(MetaTopic::Capabilities),
        "can you change how answers are formatted?",
    ),
    (
        meta(MetaTopic::Capabilities),
        "how do I narrow my question to certain years?",
    ),
    (meta(MetaTopic::Capabilities), "what are your limitations?"),
    (
        meta(MetaTopic::Capabilities),
        "can you open spreadsheets or images?",
    ),
    // Questions about the world: they go on to retrieval, and the evidence decides.
    (Question, "what is the capital of France?"),
    (Question, "how do I cook rice?"),
    (Question, "explain how engines work"),
    (Question, "who wrote Hamlet?"),
    (Question, "how do I fix a flat bicycle tire?"),
    (Question, "what is the tallest mountain in the world?"),
    (Question, "how do I write a loop in JavaScript?"),
    (Question, "why is the sky blue?"),
    (Question, "what's a good recipe for pancakes?"),
    (Question, "how many players are on a soccer team?"),
    (Question, "how do dogs learn tricks?"),
    (Question, "what is the interest rate?"),
    (Question, "why did the central bank raise rates?"),
    (Question, "what did the committee decide?"),
    (Question, "who dissented at the meeting?"),
    (Question, "when did the asset purchases end?"),
    (Question, "tell me about forward guidance"),
    (Question, "summarize the latest statement"),
    (Question, "what did they say about inflation?"),
    (Question, "labor market conditions last year"),
    (Question, "balance sheet reduction plans"),
    (Question, "how large were the bond purchases?"),
    (Question, "what was the vote?"),
    (Question, "did the Fed cut rates?"),
    (Question, "what happened to unemployment?"),
    (Question, "what were the risks to the outlook?"),
    (Question, "could you look up the policy decision for me"),
    (
        Question,
        "can you find where the committee discussed housing",
    ),
    (Question, "please explain the reasons for the rate hike"),
    (Question, "what did the minutes say about bank stress?"),
    (Question, "economic growth outlook"),
    (Question, "the emergency meeting decision"),
];

/// How an input reads against the examples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Mean cosine of the nearest examples of talk.
    pub talk: f32,
    /// Mean cosine of the nearest questions.
    pub question: f32,
    /// The nearest example of talk: the kind (and topic) if the input is talk.
    pub nearest_talk: Label,
}

impl Reading {
    /// Talk, by the margin.
    pub fn is_talk(&self) -> bool {
        self.talk > self.question + MARGIN
    }
}

/// How `input` reads against the examples; `None` when the retriever has no embedder or one
/// the margin was not set for.
pub fn read(input: &str, retriever: &dyn Retriever) -> Result<Option<Reading>, IndexError> {
    let Some(SentenceVectors {
        model,
        vectors: mut v,
    }) = retriever.embed_sentences(&[input])?
    else {
        return Ok(None);
    };
    if !model.starts_with(CALIBRATED) {
        return Ok(None);
    }
    let Some(input_vec) = v.pop() else {
        return Ok(None);
    };
    let texts: Vec<&str> = EXAMPLES.iter().map(|(_, t)| *t).collect();
    let Some(examples) =
        crate::orchestrator::examples::vectors("judgement", &texts, retriever, &model)?
    else {
        return Ok(None);
    };
    let (mut talk, mut question) = (Vec::new(), Vec::new());
    let mut nearest: Option<(f32, Label)> = None;
    for ((label, _), vec) in EXAMPLES.iter().zip(examples.iter()) {
        let s = dot(&input_vec, vec);
        match label {
            Question => question.push(s),
            Talk(..) => {
                talk.push(s);
                if nearest.is_none_or(|(best, _)| s > best) {
                    nearest = Some((s, *label));
                }
            }
        }
    }
    Ok(nearest.map(|(_, nearest_talk)| Reading {
        talk: top_mean(talk, K),
        question: top_mean(question, K),
        nearest_talk,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_talk_and_questions_have_examples() {
        for kind in [Greeting, Thanks, Farewell, Feedback, SmallTalk, Meta] {
            assert!(
                EXAMPLES
                    .iter()
                    .filter(|(l, _)| matches!(l, Talk(k, _) if *k == kind))
                    .count()
                    >= K,
                "{kind:?}"
            );
        }
        assert!(EXAMPLES.iter().filter(|(l, _)| *l == Question).count() >= 20);
        // A meta example always names its topic; other talk never does.
        for (l, t) in EXAMPLES {
            if let Talk(k, topic) = l {
                assert_eq!(*k == Meta, topic.is_some(), "{t}");
            }
        }
    }
}
