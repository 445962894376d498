// A module that imports YianaLibrary sees the library whole: the folder of documents
// (YianaFolder) and where each document's history is kept (YianaHistory) come with it.
@_exported import YianaFolder
@_exported import YianaHistory
