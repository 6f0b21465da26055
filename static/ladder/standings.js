// Apply the "Show inactive players" switch at once; without JavaScript the Search button does.
document.getElementById("inactive")?.addEventListener("change", (event) => {
  event.target.form.submit();
});
