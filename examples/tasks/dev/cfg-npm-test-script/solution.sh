sed -i 's#"node --test tests/slug.test.js"#"node --test test/"#' package.json
