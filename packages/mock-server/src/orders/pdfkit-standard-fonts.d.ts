// pdfkit ships its standard fonts' metrics as modules for its browser build, without types.
declare module 'pdfkit/standard-fonts/*' {
  /** A standard font's metrics, for pdfkit's `registerStdFonts`. */
  const font: object;
  export default font;
}
