package minion

// JournalFile is the job journal's file name under cachedir.
const JournalFile = journalFile
