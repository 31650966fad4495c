package main

// Every notion's figures are registered for reproduce.
import _ "github.com/featuredp/featuredp/notions/all"
