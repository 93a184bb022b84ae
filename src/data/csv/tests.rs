//! Tests of the CSV parser: encoding, and every kind of bad or hostile file named in one line.

use super::*;

fn err(text: &str) -> String {
    parse_csv(text.as_bytes(), "y").unwrap_err().message
}

#[test]
fn parses_numbers_and_one_hot_categories() {
    let t = parse_csv(b"a, colour ,y\n1.5,red,yes\n-2,blue,no\n3,red,no\n", "y").unwrap();
    assert_eq!(t.feature_names, ["a", "colour=red", "colour=blue"]);
    assert_eq!(t.class_names, ["yes", "no"]);
    assert_eq!(t.y, [0, 1, 1]);
    assert_eq!(t.x.row(1).to_vec(), [-2.0, 0.0, 1.0]);
}

#[test]
fn every_bad_input_names_where_and_what() {
    assert!(err("").contains("empty"));
    assert!(err("a,y\n").contains("no data rows"));
    assert!(err("a,b\n1,2\n").contains("label column 'y' not found; the columns are: a, b"));
    assert!(err("a,y\n1,0\n2,0\n").contains("only one class ('0')"));
    let e = err("a,b,y\n1,2,0\n1,2\n");
    assert!(
        e.contains("row 3") && e.contains("2 fields") && e.contains("header has 3"),
        "{e}"
    );
    let e = err("a,y\n1,0\nseven,1\n");
    assert!(
        e.contains("row 3, column 'a': expected a number, found 'seven'"),
        "{e}"
    );
    let many: String = std::iter::once("a,y\n".to_string())
        .chain((0..101).map(|i| format!("1,c{i}\n")))
        .collect();
    assert!(err(&many).contains("more than 100 classes"));
    assert!(parse_csv(&[b'a', b',', b'y', b'\n', 0xff, b'\n'], "y")
        .unwrap_err()
        .message
        .contains("UTF-8"));
    assert!(err("a,a,y\n1,2,0\n").contains("appears twice"));
}

#[test]
fn test_file_is_encoded_like_the_training_file() {
    let (tr, te) = parse_csv_pair(b"c,y\nu,0\nv,1\n", Some(b"c,y\nw,1\nu,0\n"), "y").unwrap();
    let te = te.unwrap();
    assert_eq!(tr.feature_names, ["c=u", "c=v"]);
    assert_eq!(
        te.x.row(0).to_vec(),
        [0.0, 0.0],
        "unseen category: all zeros"
    );
    assert_eq!(te.y, [1, 0]);
    let e = parse_csv_pair(b"c,y\nu,0\nv,1\n", Some(b"c,y\nu,2\n"), "y")
        .unwrap_err()
        .message;
    assert!(e.contains("test CSV file, row 2: class '2'"), "{e}");
    let e = parse_csv_pair(b"c,y\nu,0\nv,1\n", Some(b"c,z\nu,0\n"), "y")
        .unwrap_err()
        .message;
    assert!(
        e.contains("column 2 is 'z' where the training file's is 'y'"),
        "{e}"
    );
}

/// Issue #13: the header's width is checked by counting, before any name is compared (the
/// old pairwise duplicate check took 12-19 s for 10^5 columns), and so is every row's.
#[test]
fn more_than_max_columns_are_refused_by_their_count() {
    let header: Vec<String> = (0..=MAX_COLUMNS).map(|i| format!("c{i}")).collect();
    let text = format!(
        "{},y\n{}0\n",
        header.join(","),
        "1,".repeat(MAX_COLUMNS + 1)
    );
    let e = err(&text);
    assert!(
        e.contains("the header has more than 10000 columns; the lab reads at most 10000"),
        "{}",
        shown(&e)
    );
    // A data row of commas: refused by its line, never held by the csv reader.
    let text = format!("a,y\n1,0\n{}\n", ",".repeat(5 * MAX_COLUMNS));
    let e = err(&text);
    assert!(e.contains("row 3: more than 10000 fields"), "{}", shown(&e));
    // Commas inside quotes are not separators.
    let quoted = format!("a,y\n\"{}\",0\n\"x\",1\n", ",".repeat(2 * MAX_COLUMNS));
    assert!(parse_csv(quoted.as_bytes(), "y").is_ok());
}

/// A duplicate at the end of a wide header is found (by a hash map, one pass) and both its
/// columns are named.
#[test]
fn a_duplicate_name_at_the_end_of_5000_columns_is_found() {
    let mut header: Vec<String> = (0..5000).map(|i| format!("c{i}")).collect();
    header.push("c17".into());
    let text = format!("{},y\n{}0\n", header.join(","), "1,".repeat(5001));
    let e = err(&text);
    assert!(
        e.contains("column name 'c17' appears twice in the header (columns 18 and 5001)"),
        "{e}"
    );
}

/// Issue #13: an ID column of 50,000 values was one-hot encoded into 50,000 features (a 10 GB
/// matrix); now the column is named with the way out.
#[test]
fn an_id_column_is_refused_with_a_hint_not_one_hot_encoded() {
    let text: String = std::iter::once("id,a,y\n".to_string())
        .chain((0..=MAX_CATEGORIES).map(|i| format!("u{i},1,{}\n", i % 2)))
        .collect();
    let e = err(&text);
    assert!(
        e.contains("row 1002: column 'id' has more than 1000 distinct values")
            && e.contains("drop an ID or free-text column, or make it numeric"),
        "{e}"
    );
    // Exactly MAX_CATEGORIES values are still encoded.
    let ok: String = std::iter::once("id,y\n".to_string())
        .chain((0..MAX_CATEGORIES).map(|i| format!("u{i},{}\n", i % 2)))
        .collect();
    assert_eq!(
        parse_csv(ok.as_bytes(), "y").unwrap().x.ncols(),
        MAX_CATEGORIES
    );
}

/// Rows × encoded features beyond MAX_CELLS are refused while counting, before the matrix
/// (here 1000 × 51,000 values, 204 MB) is allocated.
#[test]
fn the_encoded_matrix_is_bounded_before_it_is_allocated() {
    let columns = MAX_CELLS / (MAX_CATEGORIES * MAX_CATEGORIES) + 1;
    let names: Vec<String> = (0..columns).map(|c| format!("t{c}")).collect();
    let mut text = format!("{},y\n", names.join(","));
    for r in 0..MAX_CATEGORIES {
        for _ in 0..columns {
            text.push_str(&format!("v{r},"));
        }
        text.push_str(&format!("{}\n", r % 2));
    }
    let e = err(&text);
    assert!(
        e.contains("would encode to more than 50000000 values") && e.contains("features"),
        "{e}"
    );
    // A test file counts too: 1000 features, 1000 training and 49,001 test rows.
    let train: String = std::iter::once("id,y\n".to_string())
        .chain((0..MAX_CATEGORIES).map(|i| format!("u{i},{}\n", i % 2)))
        .collect();
    let test = format!(
        "id,y\n{}",
        "u0,0\n".repeat(MAX_CELLS / MAX_CATEGORIES - 999)
    );
    let e = parse_csv_pair(train.as_bytes(), Some(test.as_bytes()), "y")
        .unwrap_err()
        .message;
    assert!(
        e.contains("the two CSV files would encode to more than"),
        "{e}"
    );
}

/// Issue #13: a spreadsheet's byte-order mark stayed in the first column's name; Windows line
/// ends work too, inside quotes as well.
#[test]
fn a_byte_order_mark_and_crlf_line_ends_are_read() {
    let t = parse_csv(b"\xef\xbb\xbfy,a,c\r\n0,1,\"u\r\nv\"\r\n1,2,w\r\n", "y").unwrap();
    assert_eq!(t.feature_names, ["a", "c=u\r\nv", "c=w"]);
    assert_eq!(
        (t.y.clone(), t.x.column(0).to_vec()),
        (vec![0, 1], vec![1.0, 2.0])
    );
    let e = parse_csv(b"\xef\xbb\xbfy,a\r\n0,1\r\n1,x\r\n", "y")
        .unwrap_err()
        .message;
    assert!(e.contains("row 3, column 'a'"), "{e}");
}

/// Issue #13: a semicolon- or tab-separated file was "label column not found".
#[test]
fn a_file_with_another_separator_is_named() {
    let e = err("a;b;y\n1;2;0\n3;4;1\n");
    assert!(
        e.contains("looks semicolon-separated (its header is 'a;b;y')")
            && e.contains("the lab reads comma-separated files"),
        "{e}"
    );
    assert!(err("a\tb\ty\n1\t2\t0\n").contains("looks tab-separated"));
}

/// Issue #13: "1,234" and "2,5" were one-hot encoded as categories without a word.
#[test]
fn numbers_written_with_commas_get_the_hint() {
    let e = err("a,y\n\"1,234\",0\n\"2,5\",1\n");
    assert!(
        e.contains("row 2, column 'a': '1,234' looks like a number with a thousands separator")
            && e.contains("with a decimal point"),
        "{e}"
    );
    let e = err("a,y\n1,0\n\"1,5\",1\n");
    assert!(
        e.contains("row 3, column 'a': '1,5': write numbers without thousands separators"),
        "{e}"
    );
    // A text column that merely contains one such value is still a text column.
    assert!(parse_csv(b"a,y\n\"1,5\",0\nred,1\n", "y").is_ok());
}

/// Issue #13: a gzip file was "not UTF-8 text".
#[test]
fn a_gzip_file_is_named() {
    let e = parse_csv(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3], "y")
        .unwrap_err()
        .message;
    assert!(
        e.contains("is a gzip-compressed file: unpack it first")
            && e.contains("loaded as two files"),
        "{e}"
    );
}

#[test]
fn values_in_messages_are_short_and_on_one_line() {
    let e = err(&format!("a,y\n1,0\n\"{}\nz\",1\n", "7".repeat(10_000)));
    assert!(e.len() < 200 && !e.contains('\n'), "{e}");
}
