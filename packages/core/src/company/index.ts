// The company record type: its folder, like contact/ (filled by the companies work of issue 18).
export {}
