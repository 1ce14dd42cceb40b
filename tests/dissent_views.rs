//! Asked what a dissenter thought, the answer reads on into the passages that name them, even
//! when those passages did not rank: built on a generated minutes file, with the real index.

mod common;

use std::fmt::Write as _;

/// A paragraph of about 170 words on the outlook that shares the question's words ("risk",
/// "January", "2010") and names no member: many of them outrank the dissenter's later view.
fn outlook(n: usize) -> String {
    let mut p = format!("Participants discussed risk {n} to the outlook in January 2010.");
    for k in 0..16 {
        let _ = write!(
            p,
            " The risk of type {n}-{k} to spending and production was judged moderate by participants."
        );
    }
    p
}

/// Minutes of one meeting: the outlook, then the dissent, a paragraph naming no one, and the
/// dissenter's further view a paragraph later (in another passage), then more of the outlook.
fn minutes() -> String {
    let mut doc =
        String::from("# Minutes of the Federal Open Market Committee, January 27, 2010\n\n");
    for n in 0..8 {
        doc.push_str(&outlook(n));
        doc.push_str("\n\n");
    }
    doc.push_str(
        "Voting against this action: Thomas M. Hoenig. Mr. Hoenig dissented because he \
         believed it was no longer advisable to indicate that the federal funds rate would stay \
         exceptionally low for an extended period.\n\n",
    );
    let mut between = String::from("Housing activity had flattened out.");
    for k in 0..16 {
        let _ = write!(
            between,
            " Sales of existing homes in region {k} were little changed over the intermeeting period."
        );
    }
    doc.push_str(&between);
    doc.push_str(
        "\n\nMoreover, Mr. Hoenig was concerned that keeping rates this low could lead to a \
         build-up of financial imbalances.\n\n",
    );
    for n in 8..16 {
        doc.push_str(&outlook(n));
        doc.push_str("\n\n");
    }
    doc
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dissenters_view_in_a_passage_that_did_not_rank_is_read_and_given() {
    // BM25 alone: the view's passage shares few of the question's words, so it does not rank.
    let r = common::ask_of_document(
        "dissent-views",
        "2010-01-27_minutes.md",
        &minutes(),
        "Per the minutes of January 27, 2010, who dissented, and what risk did he see?",
    )
    .await;
    assert!(r.answer.contains("Mr. Hoenig dissented"), "{}", r.answer);
    // The view is a paragraph of housing data away from the dissent, in a passage whose words
    // are not the question's.
    assert!(r.answer.contains("financial imbalances"), "{}", r.answer);
}
