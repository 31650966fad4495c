package dpnb

// Every notion's figures are registered for RunFigure and the helpers.
import _ "github.com/featuredp/featuredp/notions/all"
