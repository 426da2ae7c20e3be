// `main` is a boundary: the error of a foreign call leaves it with no log line
// of ours (Rust prints it, but without saying where it came from).
fn main() -> Result<(), std::io::Error> {
    let text = std::fs::read_to_string("config.txt")?;
    println!("{}", text.len());
    Ok(())
}
