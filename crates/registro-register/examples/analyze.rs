//! Prints the analysis of each stdin line: `echo "Hast du Zeit?" | cargo run -p registro-register --example analyze -- de`
use std::io::BufRead;

fn main() {
    let lang: registro_register::Lang = std::env::args().nth(1).unwrap_or("de".into()).parse().expect("language");
    for line in std::io::stdin().lock().lines().map_while(Result::ok) {
        let a = registro_register::analyze(lang, &line);
        let ms: Vec<String> = a.markers.iter().map(|m| format!("{}:{}{}", m.text, m.register.as_str(), if m.strong { "!" } else { "" })).collect();
        println!("{} [{}] {}", a.label.as_str(), ms.join(" "), line);
    }
}
