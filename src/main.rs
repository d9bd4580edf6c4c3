fn main() {
    println!("histosort CLI: coming next");
}
