git tag -a v1.2.0 -m 'Release 1.2.0'
