// The activity record type: its folder, like contact/ (filled by the activities work of issue 18).
export {}
