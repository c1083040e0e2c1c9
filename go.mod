module github.com/plangit/plangit

go 1.26.0

require github.com/yuin/goldmark v1.8.7
