//! Repairs each stdin line into a register: `echo "Hast du Zeit?" | cargo run -p registro-register --example repair_one -- de formal`
use std::io::BufRead;

fn main() {
    let mut args = std::env::args().skip(1);
    let lang: registro_register::Lang = args.next().unwrap_or("de".into()).parse().expect("language");
    let reg: registro_register::Register = args.next().unwrap_or("formal".into()).parse().expect("register");
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let r = registro_register::repair::convert(lang, &line, reg);
        println!("{} -> {}", line, r.text);
    }
}
