package output

// Colors are the ANSI sequences of salt.utils.color.get_colors; all empty
// when colour is off.
type Colors struct {
	Black, DarkGray, Red, LightRed, Green, LightGreen, Yellow, LightYellow,
	Blue, LightBlue, Magenta, LightMagenta, Cyan, LightCyan, LightGray,
	White, DefaultColor, EndC string
}

// GetColors returns Salt's default colour theme, or empty strings when use
// is false.
func GetColors(use bool) Colors {
	if !use {
		return Colors{}
	}
	const p = "\x1b[0;"
	return Colors{
		Black:        p + "30m",
		DarkGray:     p + "1;30m",
		Red:          p + "31m",
		LightRed:     p + "1;31m",
		Green:        p + "32m",
		LightGreen:   p + "1;32m",
		Yellow:       p + "33m",
		LightYellow:  p + "1;33m",
		Blue:         p + "34m",
		LightBlue:    p + "1;34m",
		Magenta:      p + "35m",
		LightMagenta: p + "1;35m",
		Cyan:         p + "36m",
		LightCyan:    p + "1;36m",
		LightGray:    p + "37m",
		White:        p + "1;37m",
		DefaultColor: p + "39m",
		EndC:         p + "0m",
	}
}
