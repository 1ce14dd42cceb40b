//! A resolution that sets out its terms as numbered clauses in one sentence too long to answer
//! whole still answers a question about one of its terms, by its first clauses with the rest
//! marked as left out: built on generated minutes, with the real index.

mod common;

use fathom::orchestrator::text::text_problems;

/// A resolution's terms: numbered clauses, then an award rule that runs the one sentence to
/// well over 120 words.
fn terms() -> String {
    let mut terms = String::from(
        "Such operations shall: (i) mature no later than March 12, 2026; (ii) be subject to an \
         overall size limit of $250 billion outstanding at any one time; (iii) be subject to a \
         maximum bid rate of five basis points above the offering rate in effect on the day of \
         the operation; and (iv) be awarded to all submitters",
    );
    // The award rule that makes the sentence too long to quote whole.
    for k in 1..=12 {
        terms.push_str(&format!(
            ", or at the stop-out rate determined by evaluating bids in ascending order in round {k}"
        ));
    }
    terms.push('.');
    terms
}

/// Minutes with one resolution, whose terms are [`terms`].
fn minutes() -> String {
    let terms = terms();
    format!(
        "# Minutes of the Federal Open Market Committee, January 28, 2026\n\n\
         Participants discussed the testing of term reverse repurchase operations over the \
         quarter-end. By unanimous vote, the Committee approved the following resolution on term \
         operations: The Committee authorizes the Desk to conduct a series of term operations. \
         {terms}\n\n\
         It was agreed that the next meeting of the Committee would be held on March 17, 2026.\n"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_term_of_a_long_resolution_is_answered_by_its_first_clauses() {
    // The one sentence of terms, not just the document, is too long to answer whole.
    assert!(
        terms().split_whitespace().count() > 120,
        "the sentence must be too long"
    );
    let a = common::ask_of_document(
        "long-resolution",
        "2026-01-28_minutes.md",
        &minutes(),
        "What overall size limit applied to the term operations authorised in January 2026?",
    )
    .await
    .answer;
    assert!(a.contains("$250 billion"), "{a}");
    // The clauses left out are marked as such, and the answer is still clean prose.
    assert!(a.contains("[\u{2026}]") && !a.contains("round 12"), "{a}");
    assert!(
        text_problems(&a).is_empty(),
        "{:?} in {a}",
        text_problems(&a)
    );
}
