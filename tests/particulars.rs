//! A sentence that says something in general is followed in the answer by the next one when
//! that one gives its particulars ("In particular, …"): built on generated minutes, with the
//! real index.

mod common;

fn minutes() -> String {
    "# Minutes of the Federal Open Market Committee, November 4, 2026\n\
     \n\
     Participants' Views on Current Conditions and the Economic Outlook\n\
     \n\
     Committee members generally viewed labor market conditions as having improved modestly. \
     Some members noted a mismatch between demand and supply for certain types of labor. In \
     particular, apprentices were said to be having difficulty finding jobs, while firms were \
     facing challenges in hiring crane operators and welders. Payroll gains had been solid on \
     average, and the unemployment rate had edged down.\n\
     \n\
     Household spending had risen at a moderate pace, and business investment had firmed.\n"
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_general_sentence_brings_its_particulars() {
    let a = common::ask_of_document(
        "particulars",
        "2026-11-04_minutes.md",
        &minutes(),
        "How did some members describe a mismatch in the labor market at the November 2026 \
         meeting?",
    )
    .await
    .answer;
    assert!(a.contains("mismatch between demand and supply"), "{a}");
    assert!(a.contains("crane operators and welders"), "{a}");
}
